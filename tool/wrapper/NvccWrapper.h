// relayout in place of nvcc: `relayout nvcc ARGS...`, `relayout-nvcc ARGS...` (a link to relayout
// by that name) and `relayout nvcc-launcher NVCC ARGS...` (the form CMAKE_CUDA_COMPILER_LAUNCHER
// runs, the real compiler first). With no mode it is nvcc itself: the real compiler replaces this
// process with the same arguments, so flags, outputs, diagnostics and exit code are nvcc's, and the
// wrapper can stay in a build for good. --relayout-generate=DIR / RELAYOUT_GENERATE and
// --relayout-use=PLAN / RELAYOUT_USE choose a profile-guided mode (WrapperModes.h); the launcher
// form takes these options before the compiler.
#pragma once

#include <string>
#include <vector>

namespace relayout {

// Whether main()'s arguments call for the wrapper.
bool isNvccWrapperCall(int argc, char** argv);

// Runs it. With no mode the process becomes nvcc (returns only when nvcc cannot be started); in a
// mode it returns nvcc's exit code.
int runNvccWrapper(int argc, char** argv);

// The real nvcc for `relayout nvcc` and `relayout-nvcc`: $RELAYOUT_NVCC, else the first nvcc on
// $PATH that is not relayout itself, else `fallback` (the nvcc relayout was built with).
std::string findRealNvcc(const std::string& self, const std::string& fallback);

}  // namespace relayout
