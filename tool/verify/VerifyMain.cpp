// relayout-verify: runs an original and a rewritten program, built elsewhere (by `relayout optimize
// --verify` on a machine without a GPU), with the same arguments in this folder, compares their
// outputs and times their kernels: what optimize --verify does after building them, with the same
// code (VerifyPrograms.cpp). It links no Clang and LLVM's Support library statically, so that it
// runs on a GPU machine that has nvcc and the CUDA driver but no LLVM.
#include "commands/HelpWrap.h"
#include "verify/VerifyPrograms.h"

#include <fmt/format.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/InitLLVM.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

#include <string>
#include <vector>

namespace cl = llvm::cl;
namespace fs = llvm::sys::fs;
namespace verify = relayout::verify;

static cl::OptionCategory category("relayout-verify options");
static cl::opt<std::string> original("original", cl::desc("The original program"), cl::value_desc("PROGRAM"),
                                     cl::cat(category));
static cl::opt<std::string> rewritten("rewritten", cl::desc("The rewritten program"), cl::value_desc("PROGRAM"),
                                      cl::cat(category));
static cl::list<std::string> candidates(
    "candidate",
    cl::desc("A candidate rewrite, instead of --rewritten: each runs against the original, and the fastest whose "
             "outputs are equal is named when it is faster beyond the runs' spread (repeatable)"),
    cl::value_desc("NAME=PROGRAM"), cl::cat(category));
static cl::opt<std::string> runArgs("run", cl::desc("Arguments for every run of both programs, split as a shell would"),
                                    cl::value_desc("'ARGS'"), cl::cat(category));
static verify::ComparisonFlags comparison(cl::SubCommand::getTopLevel(), category);
static cl::opt<std::string> kernelTimeLib("kerneltime-lib",
                                          cl::desc("librelayout_kerneltime.so, which times the kernels (default: "
                                                   "$RELAYOUT_KERNELTIME_LIBRARY, else lib/ beside this program's "
                                                   "folder; without it only wall times are measured)"),
                                          cl::value_desc("LIB"), cl::cat(category));
static cl::opt<std::string> outDir("o",
                                   cl::desc("Folder for the runs' outputs (original/run-K/, rewritten/run-K/ or "
                                            "NAME/run-K/ per candidate) and verify.json"),
                                   cl::value_desc("DIR"), cl::cat(category));

// The overview, its speed rule spelled from the constants that decide it (Verify.h): three
// paragraphs, each one line before wrapHelpText breaks it.
static std::string overview() {
  const std::string text =
      "relayout-verify: runs the original and the rewritten program (or several --candidate rewrites) --repeat "
      "times each, interleaved, in this folder with --run's arguments, compares their standard output (and "
      "--compare files) byte for byte or, with --rtol/--atol, number by number, and times their kernels. A "
      "rewrite is " +
      verify::speedRuleText() +
      fmt::format(
          "; a candidate {:.0f}% faster by the medians that neither rule decides runs up to {} more "
          "rounds. Prints a table, writes DIR/verify.json.\n",
          100 * verify::kMinSpeedMargin, verify::kExtraRounds) +
      "`relayout optimize --verify` builds the programs (DIR/verify/original/program and one per candidate) and "
      "does the same where there is a GPU; without one it prints this command.\n"
      "Exit status: 0 a rewrite's outputs equal the original's, 3 every rewrite's differ (or it fails), 1 the "
      "original program fails, or a usage error; 4 under --require-speedup when the outputs are equal but no "
      "rewrite is faster.\n";
  return relayout::wrapHelpText(text, 104);
}

static int usage(const std::string& message) {
  verify::reportError(message + " (relayout-verify --help lists the options)");
  return 1;
}

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  verify::setToolName("relayout-verify");
  cl::HideUnrelatedOptions(category);
  const std::string overviewText = overview();
  cl::ParseCommandLineOptions(argc, argv, overviewText);

  for (auto [option, name] : {std::pair{&original, "--original"}, std::pair{&outDir, "-o"}})
    if (option->empty()) return usage(std::string(name) + " is missing");
  if (rewritten.empty() && candidates.empty()) return usage("--rewritten (or --candidate NAME=PROGRAM) is missing");
  if (!rewritten.empty() && !candidates.empty()) return usage("give --rewritten or --candidate, not both");
  if (!kernelTimeLib.empty() && !fs::is_regular_file(kernelTimeLib))
    return usage("--kerneltime-lib " + kernelTimeLib + ": no such file");

  const verify::Options options = comparison.options();
  if (llvm::Error err = options.check()) return usage(llvm::toString(std::move(err)));

  verify::Programs programs;
  std::vector<verify::NamedProgram> named;
  if (!rewritten.empty()) named.push_back({"rewritten", rewritten});
  for (const std::string& c : candidates) {
    const size_t eq = c.find('=');
    if (eq == std::string::npos) return usage("--candidate " + c + ": give NAME=PROGRAM");
    verify::NamedProgram p{c.substr(0, eq), c.substr(eq + 1)};
    if (llvm::Error err = verify::checkCandidateName(p.name))
      return usage("--candidate: " + llvm::toString(std::move(err)));
    for (const verify::NamedProgram& other : named)
      if (other.name == p.name) return usage("--candidate " + p.name + " is given twice");
    named.push_back(std::move(p));
  }
  // A program named without a folder is this folder's, as the shell would not find it on PATH.
  auto runnable = [](const std::string& program) {
    return program.find('/') == std::string::npos ? "./" + program : program;
  };
  for (const std::string* program : {&original.getValue()})
    if (!fs::exists(*program) || fs::is_directory(*program) || !fs::can_execute(*program))
      return usage(*program + ": no such program (a file that can be executed)");
  for (const verify::NamedProgram& p : named)
    if (!fs::exists(p.program) || fs::is_directory(p.program) || !fs::can_execute(p.program))
      return usage(p.program + ": no such program (a file that can be executed)");
  programs.original = runnable(original);
  for (verify::NamedProgram& p : named) programs.candidates.push_back({p.name, runnable(p.program)});
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char*, 16> tokens;
  cl::TokenizeGNUCommandLine(runArgs, saver, tokens);
  programs.runArgs.assign(tokens.begin(), tokens.end());
  programs.dir = outDir;
  programs.kernelTimeLibrary = verify::findKernelTimeLibrary(kernelTimeLib);

  auto run = verify::runPrograms(programs, options);
  if (!run) {
    verify::reportError(llvm::toString(run.takeError()));
    return 1;
  }
  // `result` names the program the verdict speaks of (relayout-verify moves nothing).
  std::optional<size_t> reported = verify::reportedCandidate(run->outcome);
  return verify::reportOutcome(*run, programs, options, reported ? named[*reported].program : "");
}
