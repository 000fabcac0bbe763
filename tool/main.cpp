// relayout: profile-guided data-layout optimization for CUDA C++ (see README.md).
#include "commands/ArgumentHints.h"
#include "commands/Commands.h"
#include "commands/HelpWrap.h"
#include "wrapper/NvccWrapper.h"

#include "Commit.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/InitLLVM.h>
#include <llvm/Support/WithColor.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>

static const char kOverview[] =
    "relayout: chooses the data layout (AoS, SoA) of CUDA structs from how warps really access them,\n"
    "and rewrites the sources to it.\n\n"
    "  relayout instrument FILE.cu... [-o DIR] [-p BUILD | -- NVCC-FLAGS]   add access hooks, write site maps\n"
    "  relayout profile [-o PROFILE.json] [--hw] -- PROGRAM ARGS...        run an instrumented program\n"
    "  relayout merge PROFILE.json... -o MERGED.json                       combine the profiles of MPI ranks\n"
    "  relayout analyze --sites S.json... --profile P.json [-o PLAN.json]  choose layouts, print a report\n"
    "  relayout analyze DIR                                                 the same, over a generate-mode folder\n"
    "  relayout rewrite --plan PLAN.json FILE.cu... [-o DIR|--diff|--in-place] [-- NVCC-FLAGS]\n"
    "  relayout rewrite --sites S.json --layout soa FILE.cu...              force a layout, for experiments\n"
    "  relayout optimize FILE.cu... [-o DIR] [--run 'ARGS'] [--build-only] [-p BUILD | -- NVCC-FLAGS]\n"
    "                                                                       all of the above in one go\n"
    "  relayout batch [MANIFEST.toml] [-o OUT] [--force] [--retry]          optimize every application of a\n"
    "                                                                       manifest (default: the samples)\n"
    "  relayout nvcc [--relayout-generate=DIR | --relayout-use=PLAN] NVCC-ARGS...\n"
    "                                                                       nvcc for builds: plain, instrumented\n"
    "                                                                       (generate) or rewritten (use); also a\n"
    "                                                                       link named relayout-nvcc, and\n"
    "                                                                       `relayout nvcc-launcher [MODE] NVCC ARGS...`\n"
    "  relayout runtime-flags [--compile | --link]                          the flags nvcc needs for instrumented\n"
    "                                                                       sources, for builds that run nvcc\n"
    "  relayout-verify --original A --rewritten B [--run 'ARGS'] -o DIR    (a program of its own) compare and time\n"
    "                                                                       two builds, where the GPU is\n\n"
    "Compiler flags follow `--` and are nvcc's (translated for Clang), or come from\n"
    "BUILD/compile_commands.json with -p. `relayout SUBCOMMAND --help` explains each one.\n";

int main(int argc, char** argv) {
  // As nvcc, every argument is the compiler's: none goes through relayout's option parser.
  if (relayout::isNvccWrapperCall(argc, argv)) return relayout::runNvccWrapper(argc, argv);
  llvm::InitLLVM init(argc, argv);
  // Everything after the first `--` belongs to the compiler or to the profiled program.
  int split = argc;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) {
      split = i;
      break;
    }
  std::vector<std::string> trailing(argv + std::min(split + 1, argc), argv + argc);

  // The top level has no options of its own: LLVM's libraries register hundreds (AMDGPU, Polly,
  // x86...) that mean nothing to relayout's users, so --help shows the overview and the generic ones.
  static llvm::cl::OptionCategory relayoutCategory("relayout");
  llvm::cl::HideUnrelatedOptions(relayoutCategory);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream& os) {
    os << "relayout " RELAYOUT_VERSION " (commit " RELAYOUT_COMMIT ")\n"
       << "  Clang/LLVM " LLVM_VERSION_STRING "\n"
       << "  CUDA " RELAYOUT_CUDA_VERSION " (" RELAYOUT_NVCC ")\n";
  });
  // `relayout help [SUBCOMMAND]` is `relayout [SUBCOMMAND] --help`.
  std::vector<char*> helpArgs;
  static char helpFlag[] = "--help";
  if (argc >= 2 && std::strcmp(argv[1], "help") == 0) {
    helpArgs.push_back(argv[0]);
    if (argc >= 3) helpArgs.push_back(argv[2]);
    helpArgs.push_back(helpFlag);
    argc = split = int(helpArgs.size());
    argv = helpArgs.data();
  }
  // A subcommand's --help starts with its own description: the overview of every subcommand is
  // for `relayout --help`.
  const bool subcommand = argc >= 2 && argv[1][0] != '-';
  const char* overview = subcommand ? "relayout: profile-guided data layouts for CUDA structs (`relayout --help` lists "
                                      "the subcommands)\n"
                                    : kOverview;
  if (std::optional<std::string> hint = relayout::argumentHint(split, argv)) return relayout::reportError(*hint);
  relayout::wrapHelpOutputIfAsked(split, argv);
  if (!llvm::cl::ParseCommandLineOptions(split, argv, overview, &llvm::errs())) return 2;

  for (relayout::Subcommand* sub :
       {&relayout::instrumentSubcommand, &relayout::profileSubcommand, &relayout::mergeSubcommand,
        &relayout::analyzeSubcommand, &relayout::rewriteSubcommand, &relayout::optimizeSubcommand,
        &relayout::batchSubcommand, &relayout::runtimeFlagsSubcommand})
    if (sub->command) return sub->run(trailing);
  llvm::errs() << kOverview;
  return 2;
}
