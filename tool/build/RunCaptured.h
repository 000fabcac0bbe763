// Running a helper program whose answer relayout reads (Slurm's tools, an MPI compiler wrapper):
// its standard output and error kept as text.
#pragma once

#include <string>
#include <vector>

namespace relayout {

struct CapturedRun {
  int status = -1;  // the exit code; -1: it could not be started (`message` says why) or was killed
  std::string out, err, message;
};

// Runs `program` with `args` (standard input inherited), its output and errors captured through
// temporary files that are removed after. After `secondsToWait` (0: no limit) it is killed.
CapturedRun runCaptured(const std::string& program, const std::vector<std::string>& args, unsigned secondsToWait = 0);

}  // namespace relayout
