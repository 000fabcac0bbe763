#include "batch/Runner.h"

#include "batch/LiveDisplay.h"
#include "batch/Paths.h"
#include "batch/SummaryPage.h"
#include "batch/Variants.h"
#include "build/Spawn.h"

#include "verify/Selection.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

namespace relayout::batch {

const char* statusName(Status status) {
  switch (status) {
    case Status::NotRun:
      return "not-run";
    case Status::Verified:
      return "verified";
    case Status::Untouched:
      return "untouched";
    case Status::Slower:
      return "slower";
    case Status::Rewritten:
      return "rewritten-unverified";
    case Status::Rejected:
      return "rejected";
    case Status::Failed:
      return "failed";
    case Status::Timeout:
      return "timeout";
    case Status::Stopped:
      return "stopped";
    case Status::Built:
      return "built-for-profiling";
  }
  return "?";
}

const char* statusMeaning(Status status) {
  switch (status) {
    case Status::NotRun:
      return "not run yet";
    case Status::Verified:
      return resultMeaning(SelectionResult::Applied);
    case Status::Untouched:
      return "no rewrite ran faster than the original beyond the runs' spread, or there was nothing to measure "
             "(the analysis changed nothing, or the rewrite could apply none of its layouts): the sources stay "
             "as they are";
    case Status::Slower:
      return resultMeaning(SelectionResult::Slower);
    case Status::Rewritten:
      return "rewritten and built, not yet run on a GPU (--collect of a verification round decides)";
    case Status::Rejected:
      return resultMeaning(SelectionResult::Rejected);
    case Status::Failed:
      return "a step failed (see the log)";
    case Status::Timeout:
      return "stopped after its time limit";
    case Status::Stopped:
      return "interrupted; runs again next time";
    case Status::Built:
      return "instrumented program built, waiting for its profiled run (--prepare)";
  }
  return "";
}

bool succeeded(Status status) { return status == Status::Verified || status == Status::Untouched; }

std::optional<std::pair<Status, std::string>> statusFromSelection(const std::string& appDir) {
  llvm::Expected<nlohmann::json> s = readJsonFile(joinPath(appDir, "selection.json"));
  if (!s) {
    llvm::consumeError(s.takeError());
    return std::nullopt;
  }
  const std::string result = s->value("result", ""), message = s->value("message", "");
  if (result == resultName(SelectionResult::Applied)) return std::pair{Status::Verified, message};
  if (result == resultName(SelectionResult::Slower)) return std::pair{Status::Slower, message};
  if (result == resultName(SelectionResult::Rejected)) return std::pair{Status::Rejected, message};
  return std::pair{Status::Untouched, message};
}

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t interrupted = 0;
void onSignal(int) { interrupted = 1; }

Status statusFrom(const std::string& name) {
  for (Status s : {Status::Verified, Status::Untouched, Status::Slower, Status::Rewritten, Status::Rejected,
                   Status::Failed, Status::Timeout, Status::Stopped, Status::Built})
    if (name == statusName(s)) return s;
  return Status::NotRun;
}

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

// A JSON file another step wrote, or nothing when it is missing or unreadable (the step failed).
std::optional<nlohmann::json> readJson(const std::string& path) {
  llvm::Expected<nlohmann::json> j = readJsonFile(path);
  if (!j) {
    llvm::consumeError(j.takeError());
    return std::nullopt;
  }
  return std::move(*j);
}

// The `relayout optimize` command line for one application, at the batch's stage.
std::vector<std::string> optimizeCommand(const App& app, const RunOptions& options) {
  std::vector<std::string> argv = {options.relayout, "optimize"};
  argv.insert(argv.end(), app.sources.begin(), app.sources.end());
  argv.insert(argv.end(), {"-o", appFolder(options.outDir, app.name)});
  if (options.stage == Stage::BuildProfiled) {
    argv.push_back("--build-only");
  } else {
    if (!app.run.empty()) argv.push_back("--run=" + app.run);
    for (const std::string& f : app.compare) argv.push_back("--compare=" + f);
    for (const std::string& r : app.ignoreLines) argv.push_back("--ignore-lines=" + r);
    if (app.rtol) argv.push_back(fmt::format("--rtol={}", *app.rtol));
    if (app.atol) argv.push_back(fmt::format("--atol={}", *app.atol));
    if (app.repeat) argv.push_back(fmt::format("--repeat={}", *app.repeat));
    if (options.stage == Stage::FromProfile) {
      argv.push_back("--recorded-profile=" + joinPath(joinPath(options.profiles, app.name), "profile.json"));
      argv.push_back("--verify");  // without a GPU: builds the original and the rewritten program
    } else if (!app.recordedProfile.empty()) {
      argv.push_back("--recorded-profile=" + app.recordedProfile);
    }
  }
  if (options.stage != Stage::BuildProfiled)
    argv.insert(argv.end(), options.optimizeOptions.begin(), options.optimizeOptions.end());
  argv.insert(argv.end(), app.options.begin(), app.options.end());
  if (!app.build.empty()) {
    argv.insert(argv.end(), {"-p", app.build});
  } else {
    argv.push_back("--");
    argv.insert(argv.end(), app.flags.begin(), app.flags.end());
  }
  return argv;
}

// The last line relayout printed in a log ("relayout: building ..."), shortened: the stage; with
// `errorFirst`, the first error there is instead, if any (the cause, not a later consequence).
std::string lastRelayoutLine(const std::string& log, bool errorFirst = false) {
  std::ifstream in(log);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (line.rfind("relayout", 0) == 0) last = line;
    if (error.empty() && line.find("error: ") != std::string::npos) error = line;
  }
  if (errorFirst && !error.empty()) last = error;
  if (last.size() > 160) last = last.substr(0, 157) + "...";
  return last;
}

struct Finished {
  Status status = Status::NotRun;
  int exitCode = -1;
  double seconds = 0;
  int gpu = -1;
  std::string why;
};

Finished readState(const std::string& out, const std::string& name) {
  Finished f;
  if (std::optional<nlohmann::json> j = readJson(stateFile(out, name))) {
    f.status = statusFrom(j->value("status", ""));
    f.exitCode = j->value("exit", -1);
    f.seconds = j->value("seconds", 0.0);
    f.gpu = j->value("gpu", -1);
    f.why = j->value("why", "");
  }
  return f;
}

void writeState(const std::string& out, const App& app, const Finished& f) {
  nlohmann::json j = {{"name", app.name},
                      {"status", statusName(f.status)},
                      {"exit", f.exitCode},
                      {"seconds", f.seconds},
                      {"gpu", f.gpu},
                      {"why", f.why},
                      {"log", logFile(out, app.name)}};
  if (llvm::Error err = writeFileAtomically(stateFile(out, app.name), j.dump(1) + "\n"))
    llvm::consumeError(std::move(err));
}

struct Running {
  const App* app;
  pid_t pid;
  int gpu;
  Clock::time_point started, termSent;
  bool timedOut = false;
};

class Batch {
 public:
  Batch(const Manifest& manifest, const RunOptions& options) : manifest_(manifest), options_(options) {}

  int run() {
    for (const char* sub : {"apps", "logs", "state"})
      if (std::error_code ec = llvm::sys::fs::create_directories(joinPath(options_.outDir, sub))) {
        std::fprintf(stderr, "relayout: error: cannot create %s: %s\n", joinPath(options_.outDir, sub).c_str(),
                     ec.message().c_str());
        return 1;
      }
    std::vector<const App*> todo;
    for (const App& app : manifest_.apps) {
      Finished before = readState(options_.outDir, app.name);
      results_[app.name] = before;  // the summary shows every application, run now or before
      if (!options_.only.empty() && !options_.only.count(app.name)) continue;
      selected_.push_back(&app);
      if (shouldRun(before.status)) todo.push_back(&app);
      else
        std::fprintf(stderr, "relayout: batch: %s: %s in an earlier run, skipped (%s)\n", app.name.c_str(),
                     statusName(before.status),
                     before.status == Status::Failed || before.status == Status::Timeout ? "--retry runs it again"
                                                                                         : "--force runs it again");
    }
    std::fprintf(stderr, "relayout: batch: %zu of %zu applications to run, %u at a time%s; output in %s\n", todo.size(),
                 selected_.size(), options_.jobs,
                 options_.gpus ? fmt::format(" on {} GPU{}", options_.gpus, options_.gpus > 1 ? "s" : "").c_str()
                               : " (no GPU: rewrites are not verified)",
                 options_.outDir.c_str());
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const Clock::time_point start = Clock::now();
    Clock::time_point lastHeartbeat = start;
    size_t next = 0, done = 0;
    std::vector<Running> running;
    std::vector<bool> gpuBusy(std::max(options_.gpus, 1), false);
    while ((next < todo.size() || !running.empty())) {
      if (interrupted) {
        stopAll(running);
        break;
      }
      while (next < todo.size() && running.size() < options_.jobs) {
        int gpu = -1;  // the first free GPU; with more jobs than GPUs, they share
        if (options_.gpus) {
          for (int g = 0; g < options_.gpus && gpu < 0; ++g)
            if (!gpuBusy[g]) gpu = g;
          if (gpu < 0) gpu = static_cast<int>(running.size() % options_.gpus);
          gpuBusy[gpu] = true;
        }
        if (std::optional<Running> r = launch(*todo[next], gpu)) running.push_back(*r);
        else ++done;
        ++next;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      for (size_t i = 0; i < running.size();) {
        Running& r = running[i];
        int waitStatus = 0;
        const pid_t got = waitpid(r.pid, &waitStatus, WNOHANG);
        const double seconds = std::chrono::duration<double>(Clock::now() - r.started).count();
        if (got == r.pid) {
          killpg(r.pid, SIGKILL);  // whatever the application left running in its group
          finish(r, waitStatus, seconds);
          if (r.gpu >= 0) gpuBusy[r.gpu] = false;
          ++done;
          progress(done, todo.size(), start, running.size() - 1);
          if (display_.live()) lastHeartbeat = Clock::time_point{};  // the live block drops it at once
          writeSummary();  // kept current, so that a batch cut short still has one
          running.erase(running.begin() + static_cast<long>(i));
          continue;
        }
        if (!r.timedOut && seconds > r.app->timeoutSeconds) {
          r.timedOut = true;
          r.termSent = Clock::now();
          killpg(r.pid, SIGTERM);
        } else if (r.timedOut && Clock::now() - r.termSent > std::chrono::seconds(10)) {
          killpg(r.pid, SIGKILL);
        }
        ++i;
      }
      if (display_.live() && Clock::now() - lastHeartbeat > std::chrono::seconds(1)) {
        // On a terminal: each running application's stage, redrawn in place, and the whole batch's.
        lastHeartbeat = Clock::now();
        std::vector<std::string> block;
        for (const Running& r : running)
          block.push_back(fmt::format("  {:<20} {:>7}  {}", r.app->name,
                                      duration(std::chrono::duration<double>(Clock::now() - r.started).count()),
                                      lastRelayoutLine(logOf(*r.app))));
        block.push_back("  " + progressText(done, todo.size(), start, running.size()));
        display_.status(std::move(block));
      } else if (!display_.live() && Clock::now() - lastHeartbeat > std::chrono::seconds(60) && !running.empty()) {
        lastHeartbeat = Clock::now();
        for (const Running& r : running)
          std::fprintf(stderr, "relayout: batch: %s: running for %s; %s\n", r.app->name.c_str(),
                       duration(std::chrono::duration<double>(Clock::now() - r.started).count()).c_str(),
                       lastRelayoutLine(logOf(*r.app)).c_str());
      }
    }
    display_.close();
    // The hand-written variants of what verified now, one at a time: they time on a quiet GPU.
    if (options_.stage == Stage::Optimize && options_.gpus > 0)
      for (const App* app : todo)
        if (!interrupted && !app->variants.empty() &&
            (succeeded(results_[app->name].status) || results_[app->name].status == Status::Slower))
          verifyVariants(*app, options_.outDir, options_.relayout, interrupted);
    writeSummary();
    if (interrupted) {
      std::fprintf(stderr, "relayout: batch: interrupted; the stopped applications run again next time\n");
      return 130;
    }
    auto reachedGoal = [&](Status s) {
      if (options_.stage == Stage::BuildProfiled) return s == Status::Built;
      if (options_.stage == Stage::FromProfile) return s == Status::Rewritten || s == Status::Untouched;
      return succeeded(s);
    };
    size_t reached = 0;
    for (const App* app : selected_) reached += reachedGoal(results_[app->name].status);
    const char* goal = options_.stage == Stage::BuildProfiled ? "built"
                       : options_.stage == Stage::FromProfile ? "rewritten (or untouched)"
                                                              : "verified faster or untouched";
    std::fprintf(stderr, "relayout: batch: %zu of %zu applications %s; summary in %s\n", reached, selected_.size(),
                 goal, joinPath(options_.outDir, "summary.md").c_str());
    return reached == selected_.size() ? 0 : 1;
  }

 private:
  std::string logOf(const App& app) const { return logFile(options_.outDir, app.name); }
  std::string folderOf(const App& app) const { return appFolder(options_.outDir, app.name); }

  bool shouldRun(Status before) const {
    if (options_.stage != Stage::Optimize) return true;  // --prepare and --collect are asked for
    switch (before) {
      case Status::NotRun:
      case Status::Stopped:
        return true;
      case Status::Verified:
      case Status::Untouched:
      case Status::Slower:
      case Status::Rejected:
        return options_.force;
      case Status::Rewritten:
      case Status::Built:
        return options_.force || options_.gpus > 0;  // a GPU can verify it now
      case Status::Failed:
      case Status::Timeout:
        return options_.force || options_.retry;
    }
    return true;
  }

  std::optional<Running> launch(const App& app, int gpu) {
    llvm::sys::fs::remove_directories(folderOf(app));  // batch's own folder for it: a fresh start
    std::vector<std::string> env;
    if (gpu >= 0) env.push_back(fmt::format("CUDA_VISIBLE_DEVICES={}", gpu));
    llvm::Expected<pid_t> pid = spawn(optimizeCommand(app, options_), app.dir, logOf(app), env);
    if (!pid) {
      Finished f{Status::Failed, -1, 0, gpu, llvm::toString(pid.takeError())};
      record(app, f);
      return std::nullopt;
    }
    display_.line(fmt::format("relayout: batch: {}: started{}; log {}", app.name,
                              gpu >= 0 ? fmt::format(" on GPU {}", gpu) : "", logOf(app)));
    return Running{&app, *pid, gpu, Clock::now(), {}, false};
  }

  void finish(const Running& r, int waitStatus, double seconds) {
    Finished f;
    f.seconds = seconds;
    f.gpu = r.gpu;
    f.exitCode = WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 128 + WTERMSIG(waitStatus);
    if (r.timedOut) {
      f.status = Status::Timeout;
      f.why = fmt::format("stopped after its timeout of {}", duration(r.app->timeoutSeconds));
    } else if (interrupted) {
      f.status = Status::Stopped;
    } else if (f.exitCode == 0 && options_.stage == Stage::BuildProfiled) {
      f.status = Status::Built;
      f.why = "instrumented program built, to run where the GPU is";
    } else if (f.exitCode == 0 && options_.stage == Stage::FromProfile) {
      llvm::Expected<std::vector<StagedCandidate>> staged = readCandidates(folderOf(*r.app));
      const bool nothing = staged && staged->empty();
      if (!staged) llvm::consumeError(staged.takeError());
      f.status = nothing ? Status::Untouched : Status::Rewritten;
      f.why = nothing ? nothingToMeasure(folderOf(*r.app))
                      : "rewritten; the original and the candidate rewrites are built, to time where the GPU is";
    } else if (f.exitCode == 0) {
      if (std::optional<std::pair<Status, std::string>> s = statusFromSelection(folderOf(*r.app))) {
        f.status = s->first;
        f.why = f.status == Status::Verified ? "" : s->second;
      } else {
        f.status = Status::Rewritten;
        f.why = options_.gpus ? "optimize verified nothing (see its log)"
                              : "no GPU here: rewritten and compile-checked, not run; a batch run on a GPU verifies it";
      }
    } else if (f.exitCode == 3) {
      f.status = Status::Rejected;
      f.why = "the rewritten program's output differs from the original's (apps/" + r.app->name + "/verify/)";
    } else {
      f.status = Status::Failed;
      f.why = lastRelayoutLine(logOf(*r.app), true);
    }
    record(*r.app, f);
    display_.line(fmt::format("relayout: batch: {}: {} after {}{}", r.app->name, statusName(f.status),
                              duration(seconds), f.why.empty() ? "" : "; " + f.why));
  }

  void record(const App& app, const Finished& f) {
    results_[app.name] = f;
    writeState(options_.outDir, app, f);
  }

  std::string progressText(size_t done, size_t total, Clock::time_point start, size_t stillRunning) const {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double eta = done ? elapsed / done * (total - done) : 0;
    return fmt::format("relayout: batch: [{}/{}] done, {} running, {} elapsed{}", done, total, stillRunning,
                       duration(elapsed), done < total && done ? ", about " + duration(eta) + " left" : "");
  }

  void progress(size_t done, size_t total, Clock::time_point start, size_t stillRunning) {
    display_.line(progressText(done, total, start, stillRunning));
  }

  void stopAll(std::vector<Running>& running) {
    for (Running& r : running) killpg(r.pid, SIGTERM);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    for (Running& r : running) {
      killpg(r.pid, SIGKILL);
      int waitStatus = 0;
      waitpid(r.pid, &waitStatus, 0);
      finish(r, waitStatus, std::chrono::duration<double>(Clock::now() - r.started).count());
    }
    running.clear();
  }

  void writeSummary() { batch::writeSummary(manifest_, options_.outDir, options_.gpus); }

  const Manifest& manifest_;
  const RunOptions& options_;
  LiveDisplay display_;
  std::vector<const App*> selected_;
  std::map<std::string, Finished> results_;
};

}  // namespace

// Per application: what it ended with, its layouts (plan.json), speed-up (verify.json), its
// hand-written variants' speed-ups and what its profiled run cost.
void writeSummary(const Manifest& manifest, const std::string& outDir, int gpus) {
  nlohmann::json apps = nlohmann::json::array();
  std::string md = fmt::format(
      "# relayout batch: {}\n\n| application | result | structs | kernel speed-up "
      "(median, min–max) | candidates: predicted cost → measured speed-up | hand-written variants | profile cost | "
      "time | why |\n|---|---|---|---|---|---|---|---|---|\n",
      manifest.path);
  for (const App& app : manifest.apps) {
    const Finished f = readState(outDir, app.name);
    nlohmann::json structs = nlohmann::json::array();
    if (std::optional<nlohmann::json> plan = readJson(joinPath(appFolder(outDir, app.name), "plan.json")))
      for (const nlohmann::json& s : plan->value("structs", nlohmann::json::array()))
        structs.push_back({{"name", s.value("name", "")}, {"layout", s.value("layout", "")}});
    nlohmann::json speedup = nullptr, profileCost = nullptr;
    std::optional<nlohmann::json> verify =
        readJson(joinPath(joinPath(appFolder(outDir, app.name), "verify"), "verify.json"));
    if (verify && (*verify)["speedup"]["kernel"].is_object()) speedup = (*verify)["speedup"]["kernel"];
    // What profiling cost: the profiled run's kernel time over the original's (median of its runs).
    if (std::optional<nlohmann::json> profile = readJson(joinPath(appFolder(outDir, app.name), "profile.json"))) {
      double profiledNs = 0;
      for (const nlohmann::json& k : profile->value("kernels", nlohmann::json::array()))
        profiledNs += k.value("total_ns", 0.0);
      const nlohmann::json originalMs = verify && (*verify)["original"]["kernel_ms"].is_object()
                                            ? (*verify)["original"]["kernel_ms"].value("median", nlohmann::json())
                                            : nlohmann::json();
      if (profiledNs > 0 && originalMs.is_number() && originalMs.get<double>() > 0)
        profileCost = profiledNs / 1e6 / originalMs.get<double>();
    }
    // The candidates measured: what the analysis predicted beside what the GPU measured.
    nlohmann::json selection = nullptr;
    if (std::optional<nlohmann::json> sel = readJson(joinPath(appFolder(outDir, app.name), "selection.json"))) {
      nlohmann::json candidates = nlohmann::json::array();
      for (const nlohmann::json& c : sel->value("candidates", nlohmann::json::array()))
        candidates.push_back({{"name", c.value("name", "")},
                              {"layouts", c.value("layouts", "")},
                              {"pick", c.value("pick", false)},
                              {"applied", c.value("applied", false)},
                              {"predicted_ratio", c.value("predicted_ratio", 1.0)},
                              {"speedup", c.value("speedup", nlohmann::json())},
                              {"speed", c.value("speed", nlohmann::json())},
                              {"outputs", c.value("outputs", "")}});
      selection = {{"result", sel->value("result", "")},
                   {"applied", sel->value("applied", nlohmann::json())},
                   {"candidates", candidates}};
    }
    nlohmann::json variants = nlohmann::json::array();
    for (const Variant& v : app.variants) {
      nlohmann::json k = nullptr;
      if (std::optional<VariantSpeedup> s = variantSpeedup(outDir, app.name, v.name))
        k = {{"median", s->median}, {"min", s->min}, {"max", s->max}};
      variants.push_back({{"name", v.name}, {"kernel_speedup", k}});
    }
    apps.push_back({{"name", app.name},
                    {"status", statusName(f.status)},
                    {"exit", f.exitCode},
                    {"seconds", f.seconds},
                    {"why", f.why},
                    {"structs", structs},
                    {"kernel_speedup", speedup},
                    {"selection", selection},
                    {"variants", variants},
                    {"profile_cost", profileCost},
                    {"folder", appFolder(outDir, app.name)},
                    {"log", logFile(outDir, app.name)}});
    std::string why = f.why;
    for (char& c : why)
      if (c == '|' || c == '\n') c = ' ';
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", app.name, statusName(f.status),
                      structsText(apps.back()), speedupText(apps.back()), candidatesText(apps.back()),
                      variantsText(apps.back()), profileCostText(apps.back()), duration(f.seconds), why);
  }
  md += "\nResults:\n\n";
  for (Status s : {Status::Verified, Status::Untouched, Status::Slower, Status::Rejected, Status::Rewritten,
                   Status::Built, Status::Failed, Status::Timeout, Status::Stopped})
    md += fmt::format("- **{}**: {}\n", statusName(s), statusMeaning(s));
  md +=
      "\nKernel speed-up: the original's median kernel time over the applied rewrite's (for untouched and slower, "
      "the best candidate's, not applied). Candidates: each rewrite measured, its predicted cost as a share of the "
      "original's (the model's view) and its measured kernel speed-up (the GPU's); the applied one is marked.\n";
  nlohmann::json legend = nlohmann::json::array();
  for (Status s : {Status::Verified, Status::Untouched, Status::Slower, Status::Rejected, Status::Rewritten,
                   Status::Built, Status::Failed, Status::Timeout, Status::Stopped})
    legend.push_back({{"status", statusName(s)}, {"meaning", statusMeaning(s)}});
  nlohmann::json summary = {{"format", "relayout-batch"}, {"version", 1},
                            {"manifest", manifest.path},  {"gpus", gpus},
                            {"applications", apps},       {"legend", legend}};
  for (auto [name, text] : {std::pair<const char*, std::string>{"summary.json", summary.dump(1) + "\n"},
                            {"summary.md", md},
                            {"summary.html", renderSummaryPage(summary)}})
    if (llvm::Error err = writeFileAtomically(joinPath(outDir, name), text)) {
      std::fprintf(stderr, "relayout: warning: %s\n", llvm::toString(std::move(err)).c_str());
    }
}

Status recordedStatus(const std::string& outDir, const std::string& name) { return readState(outDir, name).status; }

void recordStatus(const std::string& outDir, const App& app, Status status, const std::string& why) {
  Finished f = readState(outDir, app.name);
  f.status = status;
  f.why = why;
  writeState(outDir, app, f);
}

int runBatch(const Manifest& manifest, const RunOptions& options) { return Batch(manifest, options).run(); }

}  // namespace relayout::batch
