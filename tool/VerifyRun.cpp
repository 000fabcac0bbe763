// Building the original and the rewritten program for `relayout optimize --verify`; running,
// comparing and timing them is VerifyPrograms.cpp's, shared with relayout-verify.
#include "VerifyRun.h"

#include "Commands.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

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
      comparison_(command) {}

namespace {

llvm::Error usageError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

}  // namespace

llvm::Error VerifyFlags::check(bool buildOnly) const {
  if (verify_ && noVerify_) return usageError("give --verify or --no-verify, not both");
  if (buildOnly) {
    std::vector<const cl::Option*> options = comparison_.all();
    options.insert(options.begin(), &verify_);
    for (const cl::Option* option : options)
      if (option->getNumOccurrences())
        return usageError("--build-only stops before the rewrite: --" + option->ArgStr + " has no use with it");
  }
  return options().check();
}

verify::Options VerifyFlags::options() const { return comparison_.options(); }

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
