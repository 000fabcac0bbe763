// Building the original and the rewritten program for `relayout optimize --verify`; running,
// comparing and timing them is VerifyPrograms.cpp's, shared with relayout-verify.
#include "VerifyRun.h"

#include "Commands.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <array>
#include <memory>

namespace relayout {

namespace cl = llvm::cl;
namespace fs = llvm::sys::fs;
using verify::Verdict;

VerifyFlags::VerifyFlags(cl::SubCommand& command)
    : verify_("verify",
              cl::desc("After the rewrite, build the original and the rewritten program as the flags make them "
                       "(DIR/verify/), run both --repeat times with --run's arguments in this folder, compare "
                       "their standard output (and --compare files) and time their kernels; a difference moves "
                       "DIR/rewritten to DIR/rejected and exits with 3. The default when this machine has a GPU; "
                       "without one, --verify builds the two programs and prints the relayout-verify command that "
                       "runs them on a machine with a GPU"),
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
  return options().check();
}

verify::Options VerifyFlags::options() const {
  verify::Options options;
  options.compare = *&compare_;
  options.rtol = rtol_;
  options.atol = atol_;
  options.rtolGiven = rtol_.getNumOccurrences();
  options.atolGiven = atol_.getNumOccurrences();
  options.repeat = repeat_;
  options.repeatGiven = repeat_.getNumOccurrences();
  options.ignoreLines = *&ignore_;
  return options;
}

int verifyRewrite(const VerifyRequest& request, const VerifyFlags& flags, bool runHere, const std::string& why) {
  const std::string verifyDir = request.outDir + "/verify", rewrittenDir = request.outDir + "/rewritten",
                    rejectedDir = request.outDir + "/rejected";
  // What an earlier verification left describes an earlier rewrite.
  for (const std::string& old : {verifyDir, rejectedDir})
    if (std::error_code ec = fs::remove_directories(old))
      return reportError(old + ": cannot remove the earlier verification's folder: " + ec.message());
  const verify::Options options = flags.options();
  verify::Programs programs{verifyDir + "/original/program", verifyDir + "/rewritten/program", request.runArgs,
                            verifyDir, ""};

  // Both programs plain, as the user's flags build them: nothing of relayout is linked.
  BuildRequest original = request.original, rewritten = request.rewritten;
  for (auto [build, name] : {std::pair{&original, "original"}, std::pair{&rewritten, "rewritten"}}) {
    build->withRuntime = false;
    build->program = verifyDir + "/" + name + "/program";
    build->objectDir = verifyDir + "/" + name + "/obj";
  }
  verify::RunResult run;
  auto judged = [&]() -> int {
    bool rejected = run.outcome.verdict == Verdict::Mismatch;
    std::string result = rewrittenDir;
    if (rejected) {
      if (std::error_code ec = fs::rename(rewrittenDir, rejectedDir))
        reportError("cannot move " + rewrittenDir + " to " + rejectedDir + ": " + ec.message());
      else result = rejectedDir;
    }
    int status = verify::reportOutcome(run, programs, options, result);
    if (rejected)
      llvm::errs() << "relayout: the rewrite is rejected: " << (result == rejectedDir ? "moved to " + result : result)
                   << "; the plan and reports stay in " << request.outDir << " (" << verifyDir
                   << "/verify.json says what differed)\n";
    return status;
  };

  // Before the builds: a FILE.relayout-verify-saved left there stops us early.
  if (runHere)
    if (llvm::Error err = verify::checkNothingKeptAside(options.compare)) return reportError(std::move(err));
  const RuntimeToolchain nvccOnly{request.nvcc, "", "", ""};
  if (llvm::Error err = runBuild(planBuild(original, nvccOnly), "the original program")) {
    run.outcome.verdict = Verdict::OriginalFailed;
    run.outcome.why = llvm::toString(std::move(err));
    return judged();
  }
  if (llvm::Error err = runBuild(planBuild(rewritten, nvccOnly), "the rewritten program")) {
    run.outcome.verdict = Verdict::Mismatch;
    run.outcome.why = llvm::toString(std::move(err)) + " (the original built with the same flags)";
    return judged();
  }
  if (!runHere) {
    std::vector<std::string> args = {"relayout-verify", "--original", programs.original, "--rewritten",
                                     programs.rewritten};
    if (!request.runArgs.empty()) args.insert(args.end(), {"--run", NvccCommand{request.runArgs, "", ""}.text()});
    for (const std::string& arg : options.arguments()) args.push_back(arg);
    args.insert(args.end(), {"-o", verifyDir});
    reportWarning("--verify cannot run here (" + why + "): the rewrite is not verified. The original and the " +
                  "rewritten program are built: " + programs.original + ", " + programs.rewritten +
                  ". On a machine with a GPU, copy them to the same paths below the folder the programs run in, " +
                  "and run there, in that folder, relayout-verify (installed beside relayout; it needs no Clang or " +
                  "LLVM):\n  " + NvccCommand{args, "", ""}.text());
    return 0;
  }

  programs.kernelTimeLibrary = verify::findKernelTimeLibrary();
  auto ran = verify::runPrograms(programs, options);
  if (!ran) return reportError(ran.takeError());
  run = std::move(*ran);
  return judged();
}

}  // namespace relayout
