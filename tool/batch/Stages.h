// relayout batch split between two machines (clusters: login nodes have the compiler, GPU nodes
// the GPUs). --prepare builds each application's instrumented program here and writes a folder
// with them and a script that runs them where the GPU is; --collect takes the profiles back,
// decides and rewrites, and writes a second folder with the original and rewritten programs and
// relayout-verify; collecting that one records what verification found.
#pragma once

#include "batch/Manifest.h"
#include "batch/Runner.h"

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout::batch {

// Who runs a prepared folder: someone by hand, told what to run next, or relayout itself through
// Slurm (Slurm.h), which says how it went.
enum class RunBy { Hand, Slurm };

int prepareProfiling(const Manifest& manifest, RunOptions options, const std::string& folder, RunBy by = RunBy::Hand);
int collect(const Manifest& manifest, RunOptions options, const std::string& folder, RunBy by = RunBy::Hand);

// What a prepared folder's stage.json says: its stage ("profile" or "verify") and the applications
// its run.sh runs, in order; `run.sh NAME` runs one of them alone.
struct PreparedFolder {
  std::string stage;
  std::vector<std::string> applications;
};
llvm::Expected<PreparedFolder> readPreparedFolder(const std::string& folder);
// Where collecting FOLDER's profiles prepares verification: FOLDER-verify.
std::string verificationFolder(const std::string& folder);

}  // namespace relayout::batch
