// Running, comparing and timing the original and the rewritten program (VerifyPrograms.h). Only
// LLVM's Support library: relayout-verify links it statically.
#include "verify/VerifyPrograms.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/Regex.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/WithColor.h>
#include <llvm/Support/raw_ostream.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>

extern char** environ;

namespace relayout::verify {

namespace fs = llvm::sys::fs;

namespace {

std::string gTool = "relayout";

constexpr const char* kStdout = "standard output";
constexpr const char* kSavedSuffix = ".relayout-verify-saved";

llvm::Error usageError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// Where run K keeps a --compare file: its path when it is relative and stays below this folder,
// otherwise its name.
std::string keptName(const std::string& file) {
  bool below =
      !llvm::sys::path::is_absolute(file) && std::none_of(llvm::sys::path::begin(file), llvm::sys::path::end(file),
                                                          [](llvm::StringRef part) { return part == ".."; });
  return below ? llvm::sys::path::remove_leading_dotslash(file).str() : llvm::sys::path::filename(file).str();
}

}  // namespace

namespace cl = llvm::cl;

ComparisonFlags::ComparisonFlags(cl::SubCommand& command, cl::OptionCategory& category)
    : compare_("compare",
               cl::desc("A file the program writes (relative to this folder) to compare as well as its standard "
                        "output; removed before each run and moved into original/run-K/ or rewritten/run-K/ of the "
                        "verification folder after it; a FILE there before is kept aside as "
                        "FILE.relayout-verify-saved and put back (repeatable)"),
               cl::value_desc("FILE"), cl::sub(command), cl::cat(category)),
      rtol_("rtol",
            cl::desc("Compare outputs token by token, numbers within atol + R * |the original's value| (default: "
                     "byte for byte)"),
            cl::value_desc("R"), cl::init(0.0), cl::sub(command), cl::cat(category)),
      atol_("atol", cl::desc("Compare outputs token by token, numbers within A + rtol * |the original's value|"),
            cl::value_desc("A"), cl::init(0.0), cl::sub(command), cl::cat(category)),
      repeat_("repeat",
              cl::desc("Runs of each program, interleaved; the table gives medians and the spread (default 5)"),
              cl::value_desc("N"), cl::init(5), cl::sub(command), cl::cat(category)),
      ignore_("ignore-lines",
              cl::desc("Leave the lines that match REGEX out of both outputs before comparing them (lines that print "
                       "times, addresses...; repeatable)"),
              cl::value_desc("REGEX"), cl::sub(command), cl::cat(category)),
      requireSpeedup_("require-speedup",
                      cl::desc("Exit with status 4 when the outputs are equal but no rewrite runs faster than the "
                               "original beyond the spread of their runs (a rewrite that is not faster is never "
                               "applied either way)"),
                      cl::sub(command), cl::cat(category)) {}

Options ComparisonFlags::options() const {
  Options options;
  options.compare.assign(compare_.begin(), compare_.end());
  options.rtol = rtol_;
  options.atol = atol_;
  options.rtolGiven = rtol_.getNumOccurrences();
  options.atolGiven = atol_.getNumOccurrences();
  options.repeat = repeat_;
  options.repeatGiven = repeat_.getNumOccurrences();
  options.ignoreLines.assign(ignore_.begin(), ignore_.end());
  options.requireSpeedup = requireSpeedup_;
  return options;
}

std::vector<const cl::Option*> ComparisonFlags::all()
    const {  // cl::list has its own operator& (the storage): addressof names the option.
  return {std::addressof(compare_), &rtol_, &atol_, &repeat_, std::addressof(ignore_), &requireSpeedup_};
}

void setToolName(const std::string& name) { gTool = name; }
void reportError(const std::string& message) { llvm::WithColor::error(llvm::errs(), gTool) << message << "\n"; }
void reportWarning(const std::string& message) { llvm::WithColor::warning(llvm::errs(), gTool) << message << "\n"; }
void reportNote(const std::string& message) { llvm::WithColor::note(llvm::errs(), gTool) << message << "\n"; }

llvm::Error Options::check() const {
  for (auto [value, name] : {std::pair{rtol, "rtol"}, std::pair{atol, "atol"}})
    if (!std::isfinite(value) || value < 0)
      return usageError(fmt::format("--{} must be a number >= 0, not {:g}", name, value));
  if (repeat == 0) return usageError("--repeat must be at least 1");
  for (const std::string& pattern : ignoreLines) {
    std::string why;
    if (!llvm::Regex(pattern).isValid(why)) return usageError("--ignore-lines '" + pattern + "': " + why);
  }
  std::set<std::string> names = {"stdout", "stderr", "kernel-time.json"};
  for (const std::string& file : compare) {
    if (file.empty()) return usageError("--compare needs a file name");
    if (!names.insert(keptName(file)).second)
      return usageError("--compare " + file +
                        ": another file, or the run's own stdout, stderr or kernel-time.json, "
                        "would be kept under the same name " +
                        keptName(file));
  }
  return llvm::Error::success();
}

Tolerance Options::tolerance() const {
  Tolerance tolerance;
  tolerance.rtol = rtol;
  tolerance.atol = atol;
  tolerance.numeric = rtolGiven || atolGiven;
  tolerance.ignoreLines = ignoreLines;
  return tolerance;
}

std::vector<std::string> Options::compared() const {
  std::vector<std::string> out = {kStdout};
  out.insert(out.end(), compare.begin(), compare.end());
  return out;
}

std::vector<std::string> Options::arguments() const {
  std::vector<std::string> out;
  for (const std::string& file : compare) out.insert(out.end(), {"--compare", file});
  if (rtolGiven) out.insert(out.end(), {"--rtol", fmt::format("{:g}", rtol)});
  if (atolGiven) out.insert(out.end(), {"--atol", fmt::format("{:g}", atol)});
  if (repeatGiven) out.insert(out.end(), {"--repeat", std::to_string(repeat)});
  for (const std::string& pattern : ignoreLines) out.insert(out.end(), {"--ignore-lines", pattern});
  if (requireSpeedup) out.push_back("--require-speedup");
  return out;
}

llvm::Error checkCandidateName(const std::string& name) {
  const bool plain = !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!plain) return usageError("candidate name '" + name + "': use letters, digits, '.', '_' and '-'");
  if (name == "original") return usageError("candidate name 'original' is the original program's");
  return llvm::Error::success();
}

std::string findKernelTimeLibrary(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* set = std::getenv("RELAYOUT_KERNELTIME_LIBRARY"); set && *set) return set;
  llvm::SmallString<256> path(fs::getMainExecutable(
      nullptr, reinterpret_cast<void*>(static_cast<std::string (*)(const std::string&)>(&findKernelTimeLibrary))));
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, "lib", "librelayout_kerneltime.so");
  return fs::exists(path) ? path.str().str() : "";
}

llvm::Error checkNothingKeptAside(const std::vector<std::string>& compare) {
  for (const std::string& file : compare)
    if (fs::exists(file + kSavedSuffix))
      return usageError(file + kSavedSuffix + " is there already (left by an interrupted verification?): put it " +
                        "back as " + file + " or remove it, then run again");
  return llvm::Error::success();
}

namespace {

// Renames `from` to `to`, copying across file systems.
llvm::Error moveFile(const std::string& from, const std::string& to) {
  if (std::error_code ec = fs::create_directories(llvm::sys::path::parent_path(to)))
    return llvm::createStringError(ec, "cannot create the folder of " + to + ": " + ec.message());
  if (!fs::rename(from, to)) return llvm::Error::success();
  if (std::error_code ec = fs::copy_file(from, to))
    return llvm::createStringError(ec, "cannot move " + from + " to " + to + ": " + ec.message());
  fs::remove(from);
  return llvm::Error::success();
}

// The users' files named by --compare, kept aside while the programs write theirs there. Put back
// on every way out, Ctrl-C included (the interrupt handler only renames).
std::vector<std::pair<std::string, std::string>> gAside;  // (saved, file)
void putBackOnInterrupt() {
  for (const auto& [saved, file] : gAside) {
    ::unlink(file.c_str());
    ::rename(saved.c_str(), file.c_str());
  }
  std::_Exit(130);
}

class KeptAside {
 public:
  ~KeptAside() { putBack(); }
  llvm::Error keep(const std::vector<std::string>& files) {
    if (llvm::Error err = checkNothingKeptAside(files)) return err;
    for (const std::string& file : files) {
      if (fs::is_directory(file)) return usageError("--compare " + file + ": is a folder");
      if (!fs::exists(file)) continue;
      std::string saved = file + kSavedSuffix;
      if (std::error_code ec = fs::rename(file, saved))
        return llvm::createStringError(ec, "cannot keep " + file + " aside as " + saved + ": " + ec.message());
      reportNote(file + " is kept aside as " + saved + " while the programs run, and put back after");
      gAside.emplace_back(saved, file);
      llvm::sys::SetInterruptFunction(putBackOnInterrupt);
    }
    return llvm::Error::success();
  }
  void putBack() {
    llvm::sys::SetInterruptFunction(nullptr);
    for (const auto& [saved, file] : gAside) {
      fs::remove(file);
      if (std::error_code ec = fs::rename(saved, file))
        reportError("cannot put " + file + " back: it is kept as " + saved + " (" + ec.message() + ")");
    }
    gAside.clear();
  }
};

std::optional<std::string> readFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return std::nullopt;
  return (*buffer)->getBuffer().str();
}

// The end of a failed run's standard error, for the message that says it failed.
std::string stderrTail(const std::string& path) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  std::string text = readFile(path).value_or("");
  llvm::StringRef(text).rtrim('\n').split(lines, '\n');
  if (text.empty()) return "";
  std::string out = gTool + ": its standard error (" + path + ") ends with:\n";
  for (size_t i = lines.size() > 10 ? lines.size() - 10 : 0; i < lines.size(); ++i)
    out += "    " + lines[i].str() + "\n";
  return out;
}

struct Run {
  RecordedRun recorded;
  RunTime time;
};

// Runs `program ARGS` once in this folder, its outputs kept in `dir`. The program gets `argv0` as
// its argv[0], the same for the original and every candidate: programs that print their own name
// ("[./prog] - Starting...") must not differ by it.
llvm::Expected<Run> runOnce(const std::string& program, const std::string& argv0, const std::vector<std::string>& args,
                            const std::string& dir, const std::vector<std::string>& compareFiles,
                            const std::string& injection) {
  if (std::error_code ec = fs::create_directories(dir))
    return llvm::createStringError(ec, dir + ": cannot create the folder: " + ec.message());
  for (const std::string& file : compareFiles) fs::remove(file);  // only the program's own writes count
  std::string stdoutPath = dir + "/stdout", stderrPath = dir + "/stderr", timePath = dir + "/kernel-time.json";
  fs::remove(timePath);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    llvm::StringRef variable(*entry);
    if (!injection.empty() &&
        (variable.starts_with("CUDA_INJECTION64_PATH=") || variable.starts_with("RELAYOUT_KERNEL_TIME=")))
      continue;
    environment.push_back(variable.str());
  }
  if (!injection.empty()) {
    llvm::SmallString<256> absoluteTime(timePath);
    fs::make_absolute(absoluteTime);
    environment.push_back("CUDA_INJECTION64_PATH=" + injection);
    environment.push_back("RELAYOUT_KERNEL_TIME=" + absoluteTime.str().str());
  }
  std::vector<llvm::StringRef> argv = {argv0}, env(environment.begin(), environment.end());
  argv.insert(argv.end(), args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(stdoutPath),
                                                llvm::StringRef(stderrPath)};
  std::string message;
  bool notStarted = false;
  auto start = std::chrono::steady_clock::now();
  int rc = llvm::sys::ExecuteAndWait(program, argv, env, redirects, 0, 0, &message, &notStarted);
  double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  Run run;
  run.recorded.exitCode = rc;
  // judgePair says "exited with status N" for the rest.
  if (notStarted) run.recorded.failure = "could not be started: " + message;
  else if (rc < 0) run.recorded.failure = "died: " + (message.empty() ? std::string("killed by a signal") : message);
  if (auto text = readFile(stdoutPath)) run.recorded.outputs[kStdout] = std::move(*text);
  for (const std::string& file : compareFiles) {
    if (!fs::exists(file)) continue;
    std::string kept = dir + "/" + keptName(file);
    if (llvm::Error err = moveFile(file, kept)) return err;
    if (auto text = readFile(kept)) run.recorded.outputs[file] = std::move(*text);
  }
  if (auto text = readFile(timePath))
    if (auto time = parseKernelTime(*text)) run.time = *time;
  run.time.wallMs = wallMs;
  return run;
}

std::string timeText(const RunTime& time) {
  return time.kernelMs ? fmt::format("{:.1f} ms (kernels {:.3f} ms)", time.wallMs, *time.kernelMs)
                       : fmt::format("{:.1f} ms", time.wallMs);
}

bool failed(const RecordedRun& run) { return run.exitCode != 0 || !run.failure.empty(); }

// Removes the run-K folders of an earlier verification in `dir`.
llvm::Error removeEarlierRuns(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> old;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("run-")) old.push_back(it->path());
  for (const std::string& path : old)
    if (std::error_code removed = fs::remove_directories(path))
      return llvm::createStringError(removed, path + ": cannot remove the earlier run's folder: " + removed.message());
  return llvm::Error::success();
}

// Where the original's run `k` printed other outputs than its first run, says so (a note) and
// records where in the outcome.
void noteUnsteadyOriginal(const RecordedRun& first, const RecordedRun& later, unsigned k,
                          const std::vector<std::string>& compared, const Tolerance& tolerance, Outcome& outcome) {
  for (const std::string& output : compared) {
    auto it = first.outputs.find(output), at = later.outputs.find(output);
    auto d = compareOutputs(it == first.outputs.end() ? "" : it->second, at == later.outputs.end() ? "" : at->second,
                            tolerance, output);
    if (!d) continue;
    outcome.originalUnsteady = fmt::format("{}, line {}: {}", output, d->originalLine, d->detail);
    reportNote(
        fmt::format("the original program's {} changed between its runs 1 and {} (line {}: {}); "
                    "outputs that change from run to run need --rtol/--atol or --ignore-lines",
                    output, k, d->originalLine, d->detail));
    return;
  }
}

}  // namespace

llvm::Expected<RunResult> runPrograms(const Programs& programs, const Options& options) {
  const std::string originalDir = programs.dir + "/original";
  std::vector<std::string> dirs = {originalDir};
  for (const NamedProgram& c : programs.candidates) dirs.push_back(programs.dir + "/" + c.name);
  for (const std::string& dir : dirs)
    if (llvm::Error err = removeEarlierRuns(dir)) return err;
  if (fs::exists(programs.dir + "/verify.json"))
    if (std::error_code ec = fs::remove(programs.dir + "/verify.json"))
      return llvm::createStringError(ec, programs.dir + "/verify.json: cannot remove it: " + ec.message());
  const Tolerance tolerance = options.tolerance();
  const std::vector<std::string> compared = options.compared();
  RunResult result;
  Outcome& outcome = result.outcome;
  outcome.repeat = options.repeat;
  for (const NamedProgram& c : programs.candidates) outcome.candidates.push_back({c.name, c.program});

  KeptAside aside;
  if (llvm::Error err = aside.keep(options.compare)) return err;
  if (programs.kernelTimeLibrary.empty())
    reportWarning(std::string("kernel times are not measured: librelayout_kerneltime.so was not found (") +
                  (gTool == "relayout-verify" ? "give --kerneltime-lib LIB or " : "") +
                  "set RELAYOUT_KERNELTIME_LIBRARY to it); wall times are");
  std::optional<RecordedRun> firstOriginal;
  const size_t n = programs.candidates.size();
  // One round: the original, then each candidate still running (in the rounds past --repeat, those
  // undecided). False when it ended the runs (the original failed, or no candidate is
  // left with equal outputs).
  auto runRound = [&](unsigned k, bool extra) -> llvm::Expected<bool> {
    std::vector<bool> running(n, true);
    if (extra)
      for (size_t i = 0; i < n; ++i) running[i] = undecidedCandidate(outcome.original, outcome.candidates[i]);
    std::string runDir = fmt::format("run-{}", k);
    auto a = runOnce(programs.original, programs.original, programs.runArgs, originalDir + "/" + runDir,
                     options.compare, programs.kernelTimeLibrary);
    if (!a) return a.takeError();
    outcome.original.push_back(a->time);
    if (failed(a->recorded)) {
      PairVerdict pair = judgePair(a->recorded, {}, compared, tolerance);
      result.failedStderr = stderrTail(originalDir + "/" + runDir + "/stderr");
      outcome.verdict = pair.verdict;
      outcome.why = pair.why;
      return false;
    }
    std::string line =
        extra ? fmt::format("{}: verify run {} (past --repeat {}, for undecided candidates): original {}", gTool, k,
                            options.repeat, timeText(a->time))
              : fmt::format("{}: verify run {}/{}: original {}", gTool, k, options.repeat, timeText(a->time));
    // Each round starts one candidate further, so that no candidate always runs right after the original.
    for (size_t step = 0; step < n; ++step) {
      const size_t i = (step + k - 1) % n;
      CandidateRuns& c = outcome.candidates[i];
      if (c.verdict != Verdict::Equal || !running[i]) continue;
      const std::string dir = dirs[i + 1] + "/" + runDir;
      auto b =
          runOnce(c.program, programs.original, programs.runArgs, dir, options.compare, programs.kernelTimeLibrary);
      if (!b) return b.takeError();
      c.runs.push_back(b->time);
      line += fmt::format(", {} {}", c.name, timeText(b->time));
      PairVerdict pair = judgePair(a->recorded, b->recorded, compared, tolerance);
      if (failed(b->recorded)) c.failedStderr = stderrTail(dir + "/stderr");
      if (pair.verdict != Verdict::Equal) {
        c.verdict = pair.verdict;
        c.difference = std::move(pair.difference);
        if (c.difference) c.difference->run = k;
        c.why = pair.why;
      }
    }
    llvm::errs() << line << "\n";
    // An original whose output changes from run to run needs a tolerance or --ignore-lines.
    if (!firstOriginal) firstOriginal = std::move(a->recorded);
    else if (!outcome.originalUnsteady)
      noteUnsteadyOriginal(*firstOriginal, a->recorded, k, compared, tolerance, outcome);
    return std::any_of(outcome.candidates.begin(), outcome.candidates.end(),
                       [](const CandidateRuns& c) { return c.verdict == Verdict::Equal; });
  };
  bool going = true;
  for (unsigned k = 1; going && k <= options.repeat; ++k) {
    llvm::Expected<bool> more = runRound(k, false);
    if (!more) return more.takeError();
    going = *more;
  }
  // A candidate faster by the medians that neither the spread nor the ranks decide gets more runs,
  // when --repeat asked for enough to judge by (kMinRankedRuns).
  auto undecided = [&] {
    return std::any_of(outcome.candidates.begin(), outcome.candidates.end(),
                       [&](const CandidateRuns& c) { return undecidedCandidate(outcome.original, c); });
  };
  while (going && options.repeat >= kMinRankedRuns && outcome.extraRounds < kExtraRounds && undecided()) {
    ++outcome.extraRounds;
    llvm::Expected<bool> more = runRound(options.repeat + outcome.extraRounds, true);
    if (!more) return more.takeError();
    going = *more;
  }
  // A candidate differed before the original ran twice: one more run of the original tells a
  // rewrite that changed the output from an original whose output changes from run to run.
  const bool anyDiffered = std::any_of(outcome.candidates.begin(), outcome.candidates.end(),
                                       [](const CandidateRuns& c) { return c.verdict == Verdict::Mismatch; });
  if (outcome.verdict != Verdict::OriginalFailed && anyDiffered && outcome.original.size() < 2 && firstOriginal) {
    auto again = runOnce(programs.original, programs.original, programs.runArgs, originalDir + "/run-again",
                         options.compare, programs.kernelTimeLibrary);
    if (!again) return again.takeError();
    if (!failed(again->recorded))
      noteUnsteadyOriginal(*firstOriginal, again->recorded, 2, compared, tolerance, outcome);
  }
  if (outcome.verdict != Verdict::OriginalFailed)
    outcome.verdict = std::any_of(outcome.candidates.begin(), outcome.candidates.end(),
                                  [](const CandidateRuns& c) { return c.verdict == Verdict::Equal; })
                          ? Verdict::Equal
                          : Verdict::Mismatch;
  aside.putBack();
  return result;
}

namespace {

// What the speed judgement says of one candidate with equal outputs, in words.
std::string speedWords(const SpeedJudgement& j) {
  const char* basis = j.kernel ? "kernel" : "wall";
  switch (j.speed) {
    case Speed::Faster:
      if (j.byRanks)
        return fmt::format("faster: {:.2f}x {} time, {}", j.speedup->median, basis, byRanksText(j.rankP, j.margin));
      return fmt::format("faster: {:.2f}x {} time, beyond the runs' spread of {:.1f}%", j.speedup->median, basis,
                         100 * j.margin);
    case Speed::Slower:
      if (j.slowerRun)
        return fmt::format(
            "slower: {:.2f}x wall time for the whole run, though {:.2f}x kernel time (the layout's "
            "copies cost more than its kernels save in this run)",
            j.slowerRun->median, j.speedup->median);
      if (j.byRanks)
        return fmt::format("slower: {:.2f}x {} time, {}", j.speedup->median, basis, byRanksText(j.rankP, j.margin));
      return fmt::format("slower: {:.2f}x {} time, beyond the runs' spread of {:.1f}%", j.speedup->median, basis,
                         100 * j.margin);
    case Speed::Same:
      return fmt::format("not faster: {:.2f}x {} time, within the runs' spread of {:.1f}%", j.speedup->median, basis,
                         100 * j.margin);
    case Speed::Unmeasured:
      return "its speed was not measured";
  }
  return "";
}

std::string equalWords(const Tolerance& tolerance, const std::vector<std::string>& compared, size_t runs) {
  return fmt::format("outputs ({}) equal the original's {} in {} runs", llvm::join(compared, ", "),
                     tolerance.numeric ? fmt::format("within rtol {:g}, atol {:g}", tolerance.rtol, tolerance.atol)
                                       : std::string("byte for byte"),
                     runs);
}

}  // namespace

int reportOutcome(const RunResult& run, const Programs& programs, const Options& options, const std::string& result) {
  const Outcome& outcome = run.outcome;
  const Tolerance tolerance = options.tolerance();
  const std::vector<std::string> compared = options.compared();
  const std::string jsonPath = programs.dir + "/verify.json";
  std::error_code ec = fs::create_directories(programs.dir);
  if (!ec) {
    llvm::raw_fd_ostream json(jsonPath, ec);
    if (!ec) {
      json << renderJson(outcome, tolerance, compared, programs.runArgs, result).dump(1) << "\n";
      json.close();
      if (json.has_error()) {
        ec = json.error();
        json.clear_error();
      }
    }
  }
  if (ec) reportError(jsonPath + ": cannot write it: " + ec.message());
  const bool ran = std::any_of(outcome.candidates.begin(), outcome.candidates.end(),
                               [](const CandidateRuns& c) { return !c.runs.empty(); });
  if (ran) llvm::outs() << renderTable(outcome);
  llvm::outs().flush();
  if (outcome.verdict == Verdict::OriginalFailed) {
    reportError("cannot verify the rewrite: " + outcome.why);
    llvm::errs() << run.failedStderr;
    return exitCode(outcome.verdict);
  }
  const bool single = outcome.candidates.size() == 1;
  const std::string details = "details in " + jsonPath;
  for (const CandidateRuns& c : outcome.candidates) {
    const std::string who = single ? "the rewritten program" : "candidate " + c.name;
    if (c.verdict == Verdict::Equal) {
      llvm::errs() << gTool << ": verified: " << who << "'s " << equalWords(tolerance, compared, c.runs.size()) << "; "
                   << speedWords(judgeSpeed(outcome.original, c.runs)) << (single ? "; " + details : "") << "\n";
      continue;
    }
    const std::string what = c.difference ? renderDifference(*c.difference) : c.why + "\n";
    if (outcome.originalUnsteady && c.difference)
      llvm::WithColor::error(llvm::errs(), gTool)
          << "cannot tell whether " << who << " does what the original does: the original itself printed "
          << "different output in two of its runs (" << *outcome.originalUnsteady
          << "); give --rtol/--atol or --ignore-lines for what changes from run to run. " << what;
    else
      llvm::WithColor::error(llvm::errs(), gTool)
          << who << " does not do what the original does: " << what << c.failedStderr;
  }
  const std::optional<size_t> chosen = chooseCandidate(outcome);
  if (!single && chosen)
    llvm::errs() << gTool << ": the fastest rewrite is " << outcome.candidates[*chosen].name << "; " << details << "\n";
  else if (!single && outcome.verdict == Verdict::Equal)
    llvm::errs() << gTool << ": no rewrite runs faster than the original: keep the original; " << details << "\n";
  if (outcome.verdict == Verdict::Equal && !chosen && options.requireSpeedup) return 4;
  return exitCode(outcome.verdict);
}

}  // namespace relayout::verify
