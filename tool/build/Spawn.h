// Starting relayout batch's child processes: each the leader of a process group of its own, so
// that a time limit or an interrupt stops everything it started.
#pragma once

#include <llvm/Support/Error.h>

#include <sys/types.h>

#include <csignal>
#include <string>
#include <vector>

namespace relayout::batch {

// Starts argv in `cwd` as the leader of a new process group, its output and errors into `log`
// (empty: relayout's own), with `extraEnv` ("NAME=VALUE") over this process's environment.
llvm::Expected<pid_t> spawn(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
                            const std::vector<std::string>& extraEnv);

// Waits for a process spawn() started and returns its wait status. After `seconds`, or once `stop`
// is set (SIGINT, SIGTERM), its group gets SIGTERM, and SIGKILL ten seconds later.
int waitWithin(pid_t pid, unsigned seconds, const volatile std::sig_atomic_t& stop);

// While one lives, SIGINT, SIGTERM and SIGHUP only note the signal (signal() says which), so
// that relayout stops what it started and waits for it before it ends.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  const volatile std::sig_atomic_t& flag() const;
  int signal() const { return int(flag()); }
};

}  // namespace relayout::batch
