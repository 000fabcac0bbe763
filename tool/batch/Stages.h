// relayout batch split between two machines (clusters: login nodes have the compiler, GPU nodes
// the GPUs). --prepare builds each application's instrumented program here and writes a folder
// with them and a script that runs them where the GPU is; --collect takes the profiles back,
// decides and rewrites, and writes a second folder with the original and rewritten programs and
// relayout-verify; collecting that one records what verification found.
#pragma once

#include "Manifest.h"
#include "Runner.h"

#include <string>

namespace relayout::batch {

int prepareProfiling(const Manifest& manifest, RunOptions options, const std::string& folder);
int collect(const Manifest& manifest, RunOptions options, const std::string& folder);

}  // namespace relayout::batch
