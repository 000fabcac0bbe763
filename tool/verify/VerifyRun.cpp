// Building the original and the rewritten program for `relayout optimize --verify`; running,
// comparing and timing them is VerifyPrograms.cpp's, shared with relayout-verify.
#include "verify/VerifyRun.h"

#include "Diagnostics.h"
#include "verify/Selection.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;
namespace fs = llvm::sys::fs;
using verify::Verdict;

VerifyFlags::VerifyFlags(cl::SubCommand& command)
    : verify_("verify",
              cl::desc("After the rewrite, build the original and each candidate rewrite (--candidates) as the flags "
                       "make them (DIR/verify/), run each --repeat times with --run's arguments in this folder, "
                       "interleaved, compare their standard output (and --compare files) and time their kernels; "
                       "the fastest candidate that prints what the original prints becomes DIR/rewritten when it "
                       "runs faster beyond the runs' spread, otherwise the sources stay as they are (no "
                       "DIR/rewritten); when none prints the same, DIR/rewritten moves to DIR/rejected and relayout "
                       "exits with 3. The default when this machine has a GPU; without one, --verify builds the "
                       "programs and prints the relayout-verify command that runs them on a machine with a GPU"),
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
  const std::string verifyDir = request.outDir + "/verify", rejectedDir = request.outDir + "/rejected";
  // What an earlier verification left describes an earlier rewrite.
  for (const std::string& old : {verifyDir, rejectedDir})
    if (std::error_code ec = fs::remove_directories(old))
      return reportError(old + ": cannot remove the earlier verification's folder: " + ec.message());
  const verify::Options options = flags.options();
  verify::Programs programs{verifyDir + "/original/program", {}, request.runArgs, verifyDir, ""};

  // Every program plain, as the user's flags build them: nothing of relayout is linked.
  auto plain = [&](BuildRequest build, const std::string& name) {
    build.withRuntime = false;
    build.program = verifyDir + "/" + name + "/program";
    build.objectDir = verifyDir + "/" + name + "/obj";
    return build;
  };
  verify::RunResult run;
  std::vector<verify::CandidateRuns> unbuilt;  // candidates whose build failed
  auto judged = [&]() -> int {
    for (verify::CandidateRuns& c : unbuilt) run.outcome.candidates.push_back(std::move(c));
    if (run.outcome.verdict != Verdict::OriginalFailed &&
        std::none_of(run.outcome.candidates.begin(), run.outcome.candidates.end(),
                     [](const verify::CandidateRuns& c) { return c.verdict == Verdict::Equal; }))
      run.outcome.verdict = Verdict::Mismatch;
    // Where the rewritten sources are once the verdict is acted on (applySelection).
    const std::string result = run.outcome.verdict == Verdict::Mismatch ? rejectedDir
                               : verify::chooseCandidate(run.outcome)   ? request.outDir + "/rewritten"
                                                                        : "";
    int status = verify::reportOutcome(run, programs, options, result);
    if (run.outcome.verdict == Verdict::OriginalFailed) return status;
    llvm::Expected<Selection> selection = applySelection(request.outDir);
    if (!selection) return reportError(selection.takeError());
    llvm::errs() << "relayout: " << selection->message << "\n";
    return status;
  };

  // Before the builds: a FILE.relayout-verify-saved left there stops us early.
  if (runHere)
    if (llvm::Error err = verify::checkNothingKeptAside(options.compare)) return reportError(std::move(err));
  if (request.candidates.empty()) {
    if (!runHere) return 0;
    llvm::Expected<Selection> selection = applySelection(request.outDir);
    if (!selection) return reportError(selection.takeError());
    llvm::errs() << "relayout: " << selection->message << "\n";
    return 0;
  }
  const RuntimeToolchain nvccOnly{request.nvcc, "", "", ""};
  if (llvm::Error err = runBuild(planBuild(plain(request.original, "original"), nvccOnly), "the original program")) {
    run.outcome.verdict = Verdict::OriginalFailed;
    run.outcome.why = llvm::toString(std::move(err));
    return judged();
  }
  for (const auto& [name, build] : request.candidates) {
    const std::string what = request.candidates.size() == 1 ? "the rewritten program" : "candidate " + name;
    if (llvm::Error err = runBuild(planBuild(plain(build, name), nvccOnly), what)) {
      verify::CandidateRuns failed;
      failed.name = name;
      failed.program = verifyDir + "/" + name + "/program";
      failed.verdict = Verdict::Mismatch;
      failed.why = llvm::toString(std::move(err)) + " (the original built with the same flags)";
      unbuilt.push_back(std::move(failed));
      continue;
    }
    programs.candidates.push_back({name, verifyDir + "/" + name + "/program"});
  }
  if (programs.candidates.empty()) return judged();
  if (!runHere) {
    std::vector<std::string> args = {"relayout-verify", "--original", programs.original};
    std::vector<std::string> built;
    for (const verify::NamedProgram& c : programs.candidates) {
      args.insert(args.end(), {"--candidate", c.name + "=" + c.program});
      built.push_back(c.program);
    }
    if (!request.runArgs.empty()) args.insert(args.end(), {"--run", NvccCommand{request.runArgs, "", ""}.text()});
    for (const std::string& arg : options.arguments()) args.push_back(arg);
    args.insert(args.end(), {"-o", verifyDir});
    reportWarning("--verify cannot run here (" + why + "): nothing is verified or measured. The original and " +
                  std::to_string(built.size()) + " candidate rewrite" + (built.size() == 1 ? " are" : "s are") +
                  " built: " + programs.original + ", " + llvm::join(built, ", ") +
                  ". On a machine with a GPU, copy them to the same paths below the folder the programs run in, " +
                  "and run there, in that folder, relayout-verify (installed beside relayout; it needs no Clang or " +
                  "LLVM):\n  " + NvccCommand{args, "", ""}.text());
    for (verify::CandidateRuns& c : unbuilt) reportWarning("candidate " + c.name + ": " + c.why);
    return 0;
  }

  programs.kernelTimeLibrary = verify::findKernelTimeLibrary();
  auto ran = verify::runPrograms(programs, options);
  if (!ran) return reportError(ran.takeError());
  run = std::move(*ran);
  return judged();
}

}  // namespace relayout
