// The sampling options shared by `instrument` and `optimize`: which blocks, launches and
// executions classify their accesses (docs/formats.md, "Sampling").
#pragma once

#include "relayout/instrument/Instrument.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

namespace relayout {

// What optimize and `relayout nvcc --relayout-generate` instrument with when no option says
// otherwise: the default sampling, and the trace of the first two launches of each kernel.
InstrumentOptions profilingDefaults();

class SamplingFlags {
 public:
  explicit SamplingFlags(llvm::cl::SubCommand& command);
  // Checks the values and fills `options`' sampling fields.
  llvm::Error apply(InstrumentOptions& options) const;

 private:
  llvm::cl::opt<unsigned> blocks_;
  llvm::cl::opt<unsigned> launches_;
  llvm::cl::opt<unsigned> checkpoints_;
  llvm::cl::opt<unsigned> executions_;
  llvm::cl::opt<unsigned> fullExecutions_;
  llvm::cl::opt<unsigned> execBudget_;
  llvm::cl::opt<unsigned> minBlocks_;
  llvm::cl::opt<unsigned> maxBlocks_;
  llvm::cl::opt<unsigned> blockFront_;
  llvm::cl::opt<unsigned> siteWarps_;
  llvm::cl::opt<bool> drawIterations_;
  llvm::cl::opt<unsigned> loopPrefix_;
  llvm::cl::opt<unsigned> countedPrefix_;
  llvm::cl::opt<bool> plainClones_;
  llvm::cl::opt<bool> noPlainClones_;
};

}  // namespace relayout
