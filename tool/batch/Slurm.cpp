#include "batch/Slurm.h"

#include "batch/Paths.h"
#include "batch/Shell.h"
#include "batch/Stages.h"
#include "build/RunCaptured.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Program.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <optional>
#include <thread>

namespace relayout::batch {

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t interrupted = 0;
void onSignal(int) { interrupted = 1; }

// SIGINT, SIGTERM and SIGHUP (a closed terminal) only set `interrupted` while the job runs, so that
// relayout cancels it before it goes; the earlier handlers come back after.
class CancelOnSignal {
 public:
  CancelOnSignal() {
    interrupted = 0;
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~CancelOnSignal() {
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  }
  CancelOnSignal(const CancelOnSignal&) = delete;
  CancelOnSignal& operator=(const CancelOnSignal&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[std::size(kSignals)] = {};
};

int fail(const std::string& message) {
  std::fprintf(stderr, "relayout: error: %s\n", message.c_str());
  return 1;
}

// What one of Slurm's commands printed.
using Finished = CapturedRun;

// Runs one of Slurm's commands and keeps what it printed.
Finished runTool(const std::string& program, const std::vector<std::string>& args) {
  return runCaptured(program, args);
}

std::string oneLine(llvm::StringRef text) {
  std::string out = llvm::StringRef(text).trim().str();
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

// Slurm's command-line tools this mode uses, found on PATH once.
struct SlurmTools {
  std::string sbatch, squeue, scancel, scontrol, sacct;
};

llvm::Expected<SlurmTools> findSlurmTools() {
  SlurmTools tools;
  for (auto [name, path] :
       {std::pair{"sbatch", &tools.sbatch}, std::pair{"squeue", &tools.squeue}, std::pair{"scancel", &tools.scancel}}) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name);
    if (!found)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--slurm needs Slurm's %s, which is not on PATH (run relayout where jobs are "
                                     "submitted, a cluster's login node)",
                                     name);
    *path = *found;
  }
  // Only for the end states of the tasks, which either one gives.
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("scontrol")) tools.scontrol = *found;
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("sacct")) tools.sacct = *found;
  return tools;
}

// FOLDER/slurm.sh: array task i runs application i of FOLDER/run.sh, which holds its command.
std::string jobScript(const std::string& stage, const std::vector<std::string>& names, unsigned gpusPerTask) {
  std::string script = fmt::format(
      "#!/bin/sh\n"
      "# Written by relayout batch --slurm: a job array whose task i runs application i of run.sh.\n"
      "# relayout submits it as: sbatch --array=0-{} --chdir=THIS-FOLDER THIS-FOLDER/slurm.sh\n"
      "#SBATCH --job-name=relayout-{}\n"
      "#SBATCH --output=slurm-%A_%a.out\n"
      "#SBATCH --ntasks=1\n",
      names.size() - 1, stage);
  if (gpusPerTask) script += fmt::format("#SBATCH --gres=gpu:{}\n", gpusPerTask);
  script += "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t i = 0; i < names.size(); ++i) script += fmt::format("{}) name={} ;;\n", i, shellQuoted(names[i]));
  script +=
      "*) echo \"slurm.sh: no application for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\n"
      "esac\n"
      "exec sh ./run.sh \"$name\"\n";
  return script;
}

// Slurm's states in which a task is over.
bool isFinal(llvm::StringRef state) {
  state = state.split(' ').first;  // "CANCELLED by 0"
  return llvm::is_contained({"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
                             "BOOT_FAIL", "DEADLINE"},
                            state);
}

struct TaskEnd {
  std::string state, exitCode;
};

// How each task of the array ended, by task: from scontrol while the controller still knows the
// job (MinJobAge, five minutes by default), else from accounting where the cluster keeps it.
std::map<unsigned, TaskEnd> taskEnds(const SlurmTools& tools, const std::string& job) {
  std::map<unsigned, TaskEnd> ends;
  if (!tools.scontrol.empty()) {
    Finished shown = runTool(tools.scontrol, {"-o", "show", "job", job});
    if (shown.status == 0) {
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(shown.out).split(lines, '\n', -1, false);
      for (llvm::StringRef line : lines) {
        std::map<std::string, std::string> fields;
        llvm::SmallVector<llvm::StringRef> words;
        line.split(words, ' ', -1, false);
        for (llvm::StringRef w : words) fields[w.split('=').first.str()] = w.split('=').second.str();
        unsigned task = 0;
        if (llvm::StringRef(fields["ArrayTaskId"]).getAsInteger(10, task)) continue;  // a range still pending
        ends[task] = {fields["JobState"], fields["ExitCode"]};
      }
      if (!ends.empty()) return ends;
    }
  }
  if (!tools.sacct.empty()) {
    Finished accounted = runTool(tools.sacct, {"-n", "-P", "-X", "-j", job, "--format=JobID,State,ExitCode"});
    if (accounted.status == 0) {
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(accounted.out).split(lines, '\n', -1, false);
      for (llvm::StringRef line : lines) {
        llvm::SmallVector<llvm::StringRef, 3> cells;
        line.split(cells, '|');
        unsigned task = 0;
        if (cells.size() < 3 || cells[0].split('_').second.getAsInteger(10, task)) continue;
        ends[task] = {cells[1].str(), cells[2].str()};
      }
    }
  }
  return ends;
}

enum class Waited { Finished, Interrupted, Lost };

// Sleeps up to `seconds`, waking when a signal came.
void nap(std::chrono::seconds seconds) {
  const Clock::time_point until = Clock::now() + seconds;
  while (!interrupted && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// Polls squeue until no task of the array is queued or running: often at first (short jobs, a
// quiet cluster), then every 30 s, with a line each minute on where the array stands.
Waited waitForArray(const SlurmTools& tools, const std::string& job, const std::string& stage, size_t tasks) {
  const Clock::time_point start = Clock::now();
  Clock::time_point lastProgress = start;
  std::chrono::seconds interval(1);
  unsigned failuresInARow = 0;
  while (true) {
    if (interrupted) return Waited::Interrupted;
    Finished queue = runTool(tools.squeue, {"-h", "-r", "-j", job, "-o", "%T"});
    if (interrupted) return Waited::Interrupted;
    if (queue.status != 0) {
      // A job the controller has already forgotten is over.
      if (llvm::StringRef(queue.err).contains("Invalid job id")) return Waited::Finished;
      if (++failuresInARow == 10) {
        std::fprintf(stderr, "relayout: error: squeue failed 10 times in a row: %s\n",
                     oneLine(queue.err.empty() ? queue.message : queue.err).c_str());
        return Waited::Lost;
      }
    } else {
      failuresInARow = 0;
      size_t pending = 0, running = 0;
      llvm::SmallVector<llvm::StringRef> states;
      llvm::StringRef(queue.out).split(states, '\n', -1, false);
      for (llvm::StringRef state : states) {
        state = state.trim();
        if (isFinal(state)) continue;
        (state == "PENDING" ? pending : running) += 1;
      }
      if (pending + running == 0) return Waited::Finished;
      if (Clock::now() - lastProgress >= std::chrono::minutes(1)) {
        lastProgress = Clock::now();
        const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(lastProgress - start).count();
        std::fprintf(stderr,
                     "relayout: batch: Slurm job %s (%s): %zu pending, %zu running, %zu finished of %zu, %lld min\n",
                     job.c_str(), stage.c_str(), pending, running, tasks - std::min(tasks, pending + running), tasks,
                     static_cast<long long>(minutes));
      }
    }
    nap(interval);
    interval = std::min(interval * 2, std::chrono::seconds(30));
  }
}

// The test's stand-ins (--slurm-before-submit): run with the folder and its stage.
llvm::Error runBeforeSubmit(const std::string& command, const std::string& folder, const std::string& stage) {
  std::string program = command;
  if (program.find('/') == std::string::npos)
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(program)) program = *found;
  const llvm::StringRef args[] = {program, folder, stage};
  std::string message;
  const int status = llvm::sys::ExecuteAndWait(program, args, std::nullopt, {}, 0, 0, &message);
  if (status != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "--slurm-before-submit %s %s %s %s", command.c_str(), folder.c_str(),
        stage.c_str(), status < 0 ? ("could not run: " + message).c_str() : fmt::format("exited {}", status).c_str());
  return llvm::Error::success();
}

enum class Ran { Finished, Interrupted, Failed };

// One prepared folder through Slurm: slurm.sh, sbatch, the wait, and a line for every task that
// did not complete. The folder's results stay for collect to take.
Ran runFolder(const SlurmTools& tools, const std::string& folder, const SlurmOptions& slurm) {
  llvm::Expected<PreparedFolder> prepared = readPreparedFolder(folder);
  if (!prepared) {
    fail(llvm::toString(prepared.takeError()));
    return Ran::Failed;
  }
  const std::vector<std::string>& names = prepared->applications;
  const std::string script = joinPath(folder, "slurm.sh");
  if (llvm::Error err = writeFileAtomically(script, jobScript(prepared->stage, names, slurm.gpusPerTask))) {
    fail(llvm::toString(std::move(err)));
    return Ran::Failed;
  }
  llvm::sys::fs::setPermissions(script, llvm::sys::fs::all_read | llvm::sys::fs::all_exe | llvm::sys::fs::owner_write);
  if (!slurm.beforeSubmit.empty())
    if (llvm::Error err = runBeforeSubmit(slurm.beforeSubmit, folder, prepared->stage)) {
      fail(llvm::toString(std::move(err)));
      return Ran::Failed;
    }

  CancelOnSignal cancelOnSignal;
  std::vector<std::string> args = {"--parsable", fmt::format("--array=0-{}", names.size() - 1), "--chdir=" + folder};
  args.insert(args.end(), slurm.sbatchOptions.begin(), slurm.sbatchOptions.end());
  args.push_back(script);
  Finished submitted = runTool(tools.sbatch, args);
  const std::string job = llvm::StringRef(submitted.out).trim().split(';').first.str();  // "JOB[;CLUSTER]"
  if (submitted.status != 0 || job.empty()) {
    // sbatch's own words, line by line: they name the option or limit it refused.
    std::string why = llvm::StringRef(submitted.err).trim().str();
    if (why.empty()) why = submitted.message.empty() ? fmt::format("exit {}", submitted.status) : submitted.message;
    fail(
        fmt::format("sbatch did not take the job array of {}:\n  {}\nThe folder stays: submit its slurm.sh "
                    "yourself (sbatch --array=0-{} --chdir={} {}), then relayout batch with --collect {}",
                    folder, llvm::join(llvm::split(why, '\n'), "\n  "), names.size() - 1, folder, script, folder));
    return Ran::Failed;
  }
  std::fprintf(stderr, "relayout: batch: Slurm job %s runs %s's %zu application%s (task logs %s/slurm-%s_TASK.out)\n",
               job.c_str(), folder.c_str(), names.size(), names.size() == 1 ? "" : "s", folder.c_str(), job.c_str());

  switch (waitForArray(tools, job, prepared->stage, names.size())) {
    case Waited::Interrupted: {
      Finished cancelled = runTool(tools.scancel, {job});
      std::fprintf(stderr, "relayout: batch: interrupted; Slurm job %s %s\n", job.c_str(),
                   cancelled.status == 0
                       ? "is cancelled"
                       : ("could not be cancelled (scancel " + job + "): " + oneLine(cancelled.err)).c_str());
      return Ran::Interrupted;
    }
    case Waited::Lost:
      std::fprintf(stderr,
                   "relayout: batch: relayout stops waiting for Slurm job %s, which may still run: scancel %s, or "
                   "when it is over collect %s with --collect\n",
                   job.c_str(), job.c_str(), folder.c_str());
      return Ran::Failed;
    case Waited::Finished:
      break;
  }
  const std::map<unsigned, TaskEnd> ends = taskEnds(tools, job);
  for (size_t i = 0; i < names.size(); ++i) {
    auto end = ends.find(static_cast<unsigned>(i));
    if (end != ends.end() && end->second.state == "COMPLETED") continue;
    std::fprintf(stderr, "relayout: batch: %s: Slurm task %s_%zu %s; see %s and %s\n", names[i].c_str(), job.c_str(), i,
                 end == ends.end() ? "ended, how Slurm does not say"
                                   : fmt::format("ended {} (exit {})", end->second.state, end->second.exitCode).c_str(),
                 joinPath(joinPath(folder, names[i]), "output.txt").c_str(),
                 joinPath(folder, fmt::format("slurm-{}_{}.out", job, i)).c_str());
  }
  return Ran::Finished;
}

// Whether a stage run here (building, deciding) was stopped by a signal: Runner marks the
// applications it stopped.
bool stoppedHere(const Manifest& manifest, const RunOptions& options) {
  return llvm::any_of(manifest.apps, [&](const App& app) {
    return (options.only.empty() || options.only.count(app.name)) &&
           recordedStatus(options.outDir, app.name) == Status::Stopped;
  });
}

}  // namespace

int runWithSlurm(const Manifest& manifest, const RunOptions& options, const std::string& folder,
                 const SlurmOptions& slurm) {
  llvm::Expected<SlurmTools> tools = findSlurmTools();
  if (!tools) return fail(llvm::toString(tools.takeError()));

  // Profiling: build here, run there, and take the profiles back (which prepares verification).
  int status = prepareProfiling(manifest, options, folder, RunBy::Slurm);
  if (stoppedHere(manifest, options)) return 130;
  if (status != 0) return status;
  // The exit status when the job did not finish, nothing when it did.
  auto submit = [&](const std::string& prepared) -> std::optional<int> {
    switch (runFolder(*tools, prepared, slurm)) {
      case Ran::Interrupted:
        return 130;
      case Ran::Failed:
        return 1;
      case Ran::Finished:
        return std::nullopt;
    }
    return 1;
  };
  if (std::optional<int> stopped = submit(folder)) return *stopped;
  collect(manifest, options, folder, RunBy::Slurm);  // what failed is in each application's state
  if (stoppedHere(manifest, options)) return 130;

  // Verification, of the applications rewritten.
  const std::string verifyFolder = verificationFolder(folder);
  llvm::Expected<PreparedFolder> verify = readPreparedFolder(verifyFolder);
  if (verify && !verify->applications.empty()) {
    if (std::optional<int> stopped = submit(verifyFolder)) return *stopped;
    collect(manifest, options, verifyFolder, RunBy::Slurm);
  } else {
    llvm::consumeError(verify.takeError());
    writeSummary(manifest, options.outDir, options.gpus);
  }

  size_t selected = 0, verified = 0;
  for (const App& app : manifest.apps) {
    if (!options.only.empty() && !options.only.count(app.name)) continue;
    ++selected;
    verified += succeeded(recordedStatus(options.outDir, app.name));
  }
  std::fprintf(stderr, "relayout: batch: %zu of %zu applications verified faster or untouched; summary in %s\n",
               verified, selected, joinPath(options.outDir, "summary.md").c_str());
  return verified == selected ? 0 : 1;
}

}  // namespace relayout::batch
