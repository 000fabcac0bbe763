// Gives ids over all units at once and renders each instrumented file once. A project file's
// sites, loops and kernels are numbered in source order within the file, so a header included by
// several units gets one numbering and one instrumented text whatever the order of the units; a
// unit's ids are its files' ranges laid end to end (the main source first, at 0).
#pragma once

#include "Collection.h"

#include "relayout/instrument/Instrument.h"

#include <llvm/Support/Error.h>

namespace relayout {

// units[i] was parsed from givenSources[i]. Fails, naming the header and both units, when two
// units see one access of a header differently (other macros, other struct layouts).
llvm::Expected<InstrumentResult> assembleUnits(std::vector<UnitFindings> units,
                                               const std::vector<std::string>& givenSources,
                                               const InstrumentOptions& options);

}  // namespace relayout
