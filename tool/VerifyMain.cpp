// relayout-verify: runs an original and a rewritten program, built elsewhere (by `relayout optimize
// --verify` on a machine without a GPU), with the same arguments in this folder, compares their
// outputs and times their kernels: what optimize --verify does after building them, with the same
// code (VerifyPrograms.cpp). It links no Clang and LLVM's Support library statically, so that it
// runs on a GPU machine that has nvcc and the CUDA driver but no LLVM.
#include "VerifyPrograms.h"

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
static cl::opt<std::string> runArgs("run", cl::desc("Arguments for every run of both programs, split as a shell would"),
                                    cl::value_desc("'ARGS'"), cl::cat(category));
static verify::ComparisonFlags comparison(cl::SubCommand::getTopLevel(), category);
static cl::opt<std::string> kernelTimeLib("kerneltime-lib",
                                          cl::desc("librelayout_kerneltime.so, which times the kernels (default: "
                                                   "$RELAYOUT_KERNELTIME_LIBRARY, else lib/ beside this program's "
                                                   "folder; without it only wall times are measured)"),
                                          cl::value_desc("LIB"), cl::cat(category));
static cl::opt<std::string> outDir("o",
                                   cl::desc("Folder for the runs' outputs (original/run-K/, rewritten/run-K/) and "
                                            "verify.json"),
                                   cl::value_desc("DIR"), cl::cat(category));

static const char kOverview[] =
    "relayout-verify: runs the original and the rewritten program --repeat times each, interleaved, in this\n"
    "folder with --run's arguments, compares their standard output (and --compare files) byte for byte or,\n"
    "with --rtol/--atol, number by number, and times their kernels. Prints a table, writes DIR/verify.json.\n"
    "`relayout optimize --verify` builds the two programs (DIR/verify/{original,rewritten}/program) and does\n"
    "the same where there is a GPU; without one it prints this command.\n"
    "Exit status: 0 the outputs are equal, 3 they differ (or the rewritten program fails), 1 the original\n"
    "program fails, or a usage error.\n";

static int usage(const std::string& message) {
  verify::reportError(message + " (relayout-verify --help lists the options)");
  return 1;
}

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  verify::setToolName("relayout-verify");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  for (auto [option, name] :
       {std::pair{&original, "--original"}, std::pair{&rewritten, "--rewritten"}, std::pair{&outDir, "-o"}})
    if (option->empty()) return usage(std::string(name) + " is missing");
  for (const std::string* program : {&original.getValue(), &rewritten.getValue()})
    if (!fs::exists(*program) || fs::is_directory(*program) || !fs::can_execute(*program))
      return usage(*program + ": no such program (a file that can be executed)");
  if (!kernelTimeLib.empty() && !fs::is_regular_file(kernelTimeLib))
    return usage("--kerneltime-lib " + kernelTimeLib + ": no such file");

  const verify::Options options = comparison.options();
  if (llvm::Error err = options.check()) return usage(llvm::toString(std::move(err)));

  verify::Programs programs;
  // A program named without a folder is this folder's, as the shell would not find it on PATH.
  for (auto [to, from] : {std::pair{&programs.original, &original}, std::pair{&programs.rewritten, &rewritten}})
    *to = from->getValue().find('/') == std::string::npos ? "./" + from->getValue() : from->getValue();
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
  return verify::reportOutcome(*run, programs, options, programs.rewritten);
}
