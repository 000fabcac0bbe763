// The sampling options shared by `instrument` and `optimize`: which blocks, launches and
// executions classify their accesses (docs/formats.md, "Sampling").
#pragma once

#include "relayout/instrument/Instrument.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

namespace relayout {

class SamplingFlags {
 public:
  explicit SamplingFlags(llvm::cl::SubCommand& command);
  // Checks the values and fills `options`' sampling fields.
  llvm::Error apply(InstrumentOptions& options) const;

 private:
  llvm::cl::opt<unsigned> blocks_;
  llvm::cl::opt<unsigned> launches_;
  llvm::cl::opt<unsigned> executions_;
};

}  // namespace relayout
