// Where relayout finds what it adds to builds and parses: relative to its own executable, so that an
// installed tree can be moved. PREFIX/bin/relayout finds PREFIX/include/relayout/rt.cuh,
// PREFIX/lib/librelayout_rt.a and PREFIX/share/relayout/; a build tree has the same shape
// (BUILD/tool/relayout, with BUILD/include, BUILD/lib and BUILD/share made by CMake).
#pragma once

#include "build/BuildPlan.h"

#include <string>

namespace relayout {

// The folder above the executable's folder.
std::string relayoutPrefix();

// nvcc (the toolkit relayout was configured with), the runtime's headers and library, CUPTI.
RuntimeToolchain relayoutToolchain();

// What a link of an instrumented program adds: the runtime, CUPTI (with its folder as a run path)
// and the driver library.
std::vector<std::string> runtimeLinkArgs(const RuntimeToolchain& toolchain);

}  // namespace relayout
