// The subcommands of the relayout driver. Each one lives in its own file, declares its options
// under its llvm::cl::SubCommand, and is run by main() when selected.
#pragma once

#include "Diagnostics.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

struct Subcommand {
  llvm::cl::SubCommand& command;
  // `trailing` holds what followed `--` on the command line (compiler flags, or the program to run).
  int (*run)(const std::vector<std::string>& trailing);
};

extern Subcommand instrumentSubcommand, profileSubcommand, mergeSubcommand, analyzeSubcommand, rewriteSubcommand,
    optimizeSubcommand, batchSubcommand, runtimeFlagsSubcommand;

}  // namespace relayout
