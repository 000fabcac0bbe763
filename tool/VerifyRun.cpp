// Building and running the original and the rewritten program for `relayout optimize --verify`.
#include "VerifyRun.h"

#include "Commands.h"

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

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

extern char** environ;

namespace relayout {

namespace cl = llvm::cl;
namespace fs = llvm::sys::fs;
using verify::Outcome;
using verify::RecordedRun;
using verify::RunTime;
using verify::Verdict;

VerifyFlags::VerifyFlags(cl::SubCommand& command)
    : verify_("verify",
              cl::desc("After the rewrite, build the original and the rewritten program as the flags make them "
                       "(DIR/verify/), run both --repeat times with --run's arguments in this folder, compare "
                       "their standard output (and --compare files) and time their kernels; a difference moves "
                       "DIR/rewritten to DIR/rejected and exits with 3. The default when this machine has a GPU"),
              cl::sub(command)),
      noVerify_("no-verify", cl::desc("Do not build and run the programs to verify the rewrite"), cl::sub(command)),
      compare_("compare",
               cl::desc("A file the program writes (relative to this folder) to compare as well as its standard "
                        "output; removed before each run and moved into DIR/verify/.../run-K/ after it; a FILE "
                        "there before is kept aside as FILE.relayout-verify-saved and put back (repeatable)"),
               cl::value_desc("FILE"), cl::sub(command)),
      rtol_("rtol",
            cl::desc("Compare outputs token by token, numbers within atol + R * |the original's value| (default: "
                     "byte for byte)"),
            cl::value_desc("R"), cl::init(0.0), cl::sub(command)),
      atol_("atol", cl::desc("Compare outputs token by token, numbers within A + rtol * |the original's value|"),
            cl::value_desc("A"), cl::init(0.0), cl::sub(command)),
      repeat_("repeat",
              cl::desc("Runs of each program, interleaved; the table gives medians and the spread (default 5)"),
              cl::value_desc("N"), cl::init(5), cl::sub(command)),
      ignore_("ignore-lines",
              cl::desc("Leave the lines that match REGEX out of both outputs before comparing them (lines that print "
                       "times, addresses...; repeatable)"),
              cl::value_desc("REGEX"), cl::sub(command)) {}

namespace {

// Where run K keeps a --compare file: its path when it is relative and stays below this folder,
// otherwise its name.
std::string keptName(const std::string& file) {
  bool below =
      !llvm::sys::path::is_absolute(file) && std::none_of(llvm::sys::path::begin(file), llvm::sys::path::end(file),
                                                          [](llvm::StringRef part) { return part == ".."; });
  return below ? llvm::sys::path::remove_leading_dotslash(file).str() : llvm::sys::path::filename(file).str();
}

llvm::Error usageError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

}  // namespace

llvm::Error VerifyFlags::check(bool buildOnly) const {
  if (verify_ && noVerify_) return usageError("give --verify or --no-verify, not both");
  if (buildOnly)
    for (const cl::Option* option : std::array<const cl::Option*, 6>{&verify_, std::addressof(compare_), &rtol_, &atol_,
                                                                     &repeat_, std::addressof(ignore_)})
      if (option->getNumOccurrences())
        return usageError("--build-only stops before the rewrite: --" + option->ArgStr + " has no use with it");
  for (const auto* tolerance : {&rtol_, &atol_})
    if (!std::isfinite(*tolerance) || *tolerance < 0)
      return usageError("--" + tolerance->ArgStr + " must be a number >= 0, not " +
                        fmt::format("{:g}", double(*tolerance)));
  if (repeat_ == 0) return usageError("--repeat must be at least 1");
  for (const std::string& pattern : *&ignore_) {
    std::string why;
    if (!llvm::Regex(pattern).isValid(why)) return usageError("--ignore-lines '" + pattern + "': " + why);
  }
  std::set<std::string> names = {"stdout", "stderr", "kernel-time.json"};
  for (const std::string& file : *&compare_) {
    if (file.empty()) return usageError("--compare needs a file name");
    if (!names.insert(keptName(file)).second)
      return usageError("--compare " + file +
                        ": another file, or the run's own stdout, stderr or kernel-time.json, "
                        "would be kept under the same name " +
                        keptName(file));
  }
  return llvm::Error::success();
}

verify::Tolerance VerifyFlags::tolerance() const {
  verify::Tolerance tolerance;
  tolerance.rtol = rtol_;
  tolerance.atol = atol_;
  tolerance.numeric = rtol_.getNumOccurrences() || atol_.getNumOccurrences();
  tolerance.ignoreLines = *&ignore_;
  return tolerance;
}

std::vector<std::string> VerifyFlags::arguments() const {
  std::vector<std::string> out;
  for (const std::string& file : *&compare_) out.insert(out.end(), {"--compare", file});
  if (rtol_.getNumOccurrences()) out.insert(out.end(), {"--rtol", fmt::format("{:g}", double(rtol_))});
  if (atol_.getNumOccurrences()) out.insert(out.end(), {"--atol", fmt::format("{:g}", double(atol_))});
  if (repeat_.getNumOccurrences()) out.insert(out.end(), {"--repeat", std::to_string(repeat_)});
  for (const std::string& pattern : *&ignore_) out.insert(out.end(), {"--ignore-lines", pattern});
  return out;
}

namespace {

constexpr const char* kStdout = "standard output";
constexpr const char* kSavedSuffix = ".relayout-verify-saved";

// The CUPTI injection library that times kernels: $RELAYOUT_KERNELTIME_LIBRARY, else PREFIX/lib/
// beside PREFIX/bin/relayout (a build tree has BUILD/lib/ beside BUILD/tool/relayout).
std::string kernelTimeLibrary() {
  if (const char* given = std::getenv("RELAYOUT_KERNELTIME_LIBRARY"); given && *given) return given;
  llvm::SmallString<256> path(fs::getMainExecutable(nullptr, reinterpret_cast<void*>(&kernelTimeLibrary)));
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, "lib", "librelayout_kerneltime.so");
  return fs::exists(path) ? path.str().str() : "";
}

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
    for (const std::string& file : files) {
      if (fs::is_directory(file)) return usageError("--compare " + file + ": is a folder");
      if (!fs::exists(file)) continue;
      std::string saved = file + kSavedSuffix;
      if (fs::exists(saved))
        return usageError(saved + " is there already (left by an interrupted verification?): put it back as " + file +
                          " or remove it, then run again");
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
  std::string out = "relayout: its standard error (" + path + ") ends with:\n";
  for (size_t i = lines.size() > 10 ? lines.size() - 10 : 0; i < lines.size(); ++i)
    out += "    " + lines[i].str() + "\n";
  return out;
}

struct Run {
  RecordedRun recorded;
  RunTime time;
};

// Runs `program ARGS` once in this folder, its outputs kept in `dir`.
llvm::Expected<Run> runOnce(const std::string& program, const std::vector<std::string>& args, const std::string& dir,
                            const std::vector<std::string>& compareFiles, const std::string& injection) {
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
  std::vector<llvm::StringRef> argv = {program}, env(environment.begin(), environment.end());
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
    if (auto time = verify::parseKernelTime(*text)) run.time = *time;
  run.time.wallMs = wallMs;
  return run;
}

std::string timeText(const RunTime& time) {
  return time.kernelMs ? fmt::format("{:.1f} ms (kernels {:.3f} ms)", time.wallMs, *time.kernelMs)
                       : fmt::format("{:.1f} ms", time.wallMs);
}

bool failed(const RecordedRun& run) { return run.exitCode != 0 || !run.failure.empty(); }

}  // namespace

int verifyRewrite(const VerifyRequest& request, const VerifyFlags& flags) {
  const std::string verifyDir = request.outDir + "/verify", rewrittenDir = request.outDir + "/rewritten",
                    rejectedDir = request.outDir + "/rejected";
  // What an earlier verification left describes an earlier rewrite.
  for (const std::string& old : {verifyDir, rejectedDir})
    if (std::error_code ec = fs::remove_directories(old))
      return reportError(old + ": cannot remove the earlier verification's folder: " + ec.message());
  const verify::Tolerance tolerance = flags.tolerance();
  std::vector<std::string> compared = {kStdout};
  compared.insert(compared.end(), flags.compared().begin(), flags.compared().end());
  Outcome outcome;
  outcome.repeat = flags.repeat();

  // Both programs plain, as the user's flags build them: nothing of relayout is linked.
  BuildRequest original = request.original, rewritten = request.rewritten;
  for (auto [build, name] : {std::pair{&original, "original"}, std::pair{&rewritten, "rewritten"}}) {
    build->withRuntime = false;
    build->program = verifyDir + "/" + name + "/program";
    build->objectDir = verifyDir + "/" + name + "/obj";
  }
  const RuntimeToolchain nvccOnly{request.nvcc, "", "", ""};
  std::string failedStderr;  // the end of a failed run's standard error
  auto judged = [&]() -> int {
    bool rejected = outcome.verdict == Verdict::Mismatch;
    std::string result = rewrittenDir;
    if (rejected) {
      if (std::error_code ec = fs::rename(rewrittenDir, rejectedDir))
        reportError("cannot move " + rewrittenDir + " to " + rejectedDir + ": " + ec.message());
      else result = rejectedDir;
    }
    std::error_code ec = fs::create_directories(verifyDir);
    llvm::raw_fd_ostream json(verifyDir + "/verify.json", ec);
    if (!ec) json << verify::renderJson(outcome, tolerance, compared, request.runArgs, result).dump(1) << "\n";
    if (ec || json.has_error()) reportError(verifyDir + "/verify.json: cannot write it");
    if (!outcome.rewritten.empty()) llvm::outs() << verify::renderTable(outcome);
    llvm::outs().flush();
    switch (outcome.verdict) {
      case Verdict::Equal:
        llvm::errs() << "relayout: verified: the rewritten program's outputs (" << llvm::join(compared, ", ") << ")"
                     << (tolerance.numeric ? fmt::format(" equal the original's within rtol {:g}, atol {:g}",
                                                         tolerance.rtol, tolerance.atol)
                                           : std::string(" equal the original's byte for byte"))
                     << " in " << outcome.rewritten.size() << " runs; details in " << verifyDir << "/verify.json\n";
        break;
      case Verdict::Mismatch:
        llvm::WithColor::error(llvm::errs(), "relayout")
            << "the rewritten program does not do what the original does: "
            << (outcome.difference ? verify::renderDifference(*outcome.difference) : outcome.why + "\n")
            << failedStderr;
        llvm::errs() << "relayout: the rewrite is rejected: " << (rejected ? "moved to " + result : result)
                     << "; the plan and reports stay in " << request.outDir << " (" << verifyDir
                     << "/verify.json says what differed)\n";
        break;
      case Verdict::OriginalFailed:
        reportError("cannot verify the rewrite: " + outcome.why);
        llvm::errs() << failedStderr;
        break;
    }
    return verify::exitCode(outcome.verdict);
  };

  KeptAside aside;  // before the builds: a FILE.relayout-verify-saved left there stops us early
  if (llvm::Error err = aside.keep(flags.compared())) return reportError(std::move(err));
  if (llvm::Error err = runBuild(planBuild(original, nvccOnly), "the original program")) {
    outcome.verdict = Verdict::OriginalFailed;
    outcome.why = llvm::toString(std::move(err));
    return judged();
  }
  if (llvm::Error err = runBuild(planBuild(rewritten, nvccOnly), "the rewritten program")) {
    outcome.verdict = Verdict::Mismatch;
    outcome.why = llvm::toString(std::move(err)) + " (the original built with the same flags)";
    return judged();
  }

  const std::string injection = kernelTimeLibrary();
  if (injection.empty())
    reportWarning(
        "kernel times are not measured: librelayout_kerneltime.so was not found (set "
        "RELAYOUT_KERNELTIME_LIBRARY to it); wall times are");
  std::optional<RecordedRun> firstOriginal;
  bool notedUnsteady = false;
  for (unsigned k = 1; k <= flags.repeat(); ++k) {
    std::string runDir = fmt::format("run-{}", k);
    auto a = runOnce(original.program, request.runArgs, verifyDir + "/original/" + runDir, flags.compared(), injection);
    if (!a) return reportError(a.takeError());
    outcome.original.push_back(a->time);
    verify::PairVerdict pair;
    if (failed(a->recorded)) {
      pair = verify::judgePair(a->recorded, {}, compared, tolerance);
      failedStderr = stderrTail(verifyDir + "/original/" + runDir + "/stderr");
    } else {
      auto b =
          runOnce(rewritten.program, request.runArgs, verifyDir + "/rewritten/" + runDir, flags.compared(), injection);
      if (!b) return reportError(b.takeError());
      outcome.rewritten.push_back(b->time);
      llvm::errs() << fmt::format("relayout: verify run {}/{}: original {}, rewritten {}\n", k, flags.repeat(),
                                  timeText(a->time), timeText(b->time));
      pair = verify::judgePair(a->recorded, b->recorded, compared, tolerance);
      if (failed(b->recorded)) failedStderr = stderrTail(verifyDir + "/rewritten/" + runDir + "/stderr");
    }
    if (pair.verdict != Verdict::Equal) {
      outcome.verdict = pair.verdict;
      outcome.difference = std::move(pair.difference);
      if (outcome.difference) outcome.difference->run = k;
      outcome.why = pair.why;
      break;
    }
    // An original whose output changes from run to run needs a tolerance or --ignore-lines.
    if (!firstOriginal) firstOriginal = std::move(a->recorded);
    else if (!notedUnsteady)
      for (const std::string& output : compared)
        if (auto d = verify::compareOutputs(firstOriginal->outputs[output], a->recorded.outputs[output], tolerance,
                                            output)) {
          reportNote(
              fmt::format("the original program's {} changed between its runs 1 and {} (line {}: {}); "
                          "outputs that change from run to run need --rtol/--atol or --ignore-lines",
                          output, k, d->originalLine, d->detail));
          notedUnsteady = true;
          break;
        }
  }
  aside.putBack();
  return judged();
}

}  // namespace relayout
