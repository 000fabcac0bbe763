#include "build/Spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace relayout::batch {

// Starts argv in `cwd` as the leader of a new process group, its output and errors into `log`.
llvm::Expected<pid_t> spawn(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
                            const std::vector<std::string>& extraEnv) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const std::string& extra : extraEnv)
      replaced |= entry.compare(0, extra.find('=') + 1, extra, 0, extra.find('=') + 1) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extraEnv.begin(), extraEnv.end());
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0)
    return llvm::createStringError(std::error_code(rc, std::generic_category()), "cannot start %s: %s", argv[0].c_str(),
                                   std::strerror(rc));
  return pid;
}

int waitWithin(pid_t pid, unsigned seconds, const volatile std::sig_atomic_t& stop) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point termSent{};
  bool termed = false;
  int waitStatus = 0;
  while (waitpid(pid, &waitStatus, WNOHANG) != pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!termed && (stop || Clock::now() - start > std::chrono::seconds(seconds))) {
      termed = true;
      termSent = Clock::now();
      killpg(pid, SIGTERM);
    } else if (termed && Clock::now() - termSent > std::chrono::seconds(10)) {
      killpg(pid, SIGKILL);
    }
  }
  killpg(pid, SIGKILL);  // whatever it left running in its group
  return waitStatus;
}

namespace {
volatile std::sig_atomic_t gStopSignal = 0;
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction gBefore[3];  // of the one StopOnSignal alive
// Notes the signal, and tells the handler that was there before (relayout batch's own) too.
void noteStop(int sig) {
  gStopSignal = sig;
  for (int i = 0; i < 3; ++i)
    if (kStopSignals[i] == sig && !(gBefore[i].sa_flags & SA_SIGINFO) && gBefore[i].sa_handler != SIG_DFL &&
        gBefore[i].sa_handler != SIG_IGN)
      gBefore[i].sa_handler(sig);
}
}  // namespace

StopOnSignal::StopOnSignal() {
  gStopSignal = 0;
  struct sigaction action {};
  action.sa_handler = noteStop;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &action, &gBefore[i]);
}

StopOnSignal::~StopOnSignal() {
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &gBefore[i], nullptr);
}

const volatile std::sig_atomic_t& StopOnSignal::flag() const { return gStopSignal; }

}  // namespace relayout::batch
