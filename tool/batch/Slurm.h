// relayout batch --slurm: the two-machine split of Stages.h, with Slurm running the GPU side.
// Each prepared folder gets a slurm.sh whose array task i runs application i of its run.sh;
// relayout submits it with sbatch, waits for the array to finish and collects, for profiling and
// then for verification.
#pragma once

#include "batch/Manifest.h"
#include "batch/Runner.h"

#include <string>
#include <vector>

namespace relayout::batch {

struct SlurmOptions {
  unsigned gpusPerTask = 1;                // --gres=gpu:N for each task; 0 asks for none
  std::vector<std::string> sbatchOptions;  // passed to sbatch as they are (--partition=..., --time=...)
  std::string beforeSubmit;                // for tests: run with FOLDER and its stage before each submission
};

// Exit status as runBatch's: 0 when every selected application verified, 1 otherwise, 130 when
// interrupted (the submitted job is cancelled first).
int runWithSlurm(const Manifest& manifest, const RunOptions& options, const std::string& folder,
                 const SlurmOptions& slurm);

}  // namespace relayout::batch
