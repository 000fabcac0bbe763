// Functions that take S* from device arrays and from other pointers (Facts.h, DualUseFunction).
#pragma once

#include "Facts.h"

#include <map>
#include <string>
#include <vector>

namespace relayout::rw {

// A function kept for other callers still calls, in its original, what it calls with arrays: each
// such callee is kept too, to a fixed point (the original of `shadeBounce` calls the original of
// `occluded`). A callee that cannot be kept refuses its parameter's struct.
void keepCalleesOfKept(ProgramFacts& facts);

// Completes each overload taking element reference proxies (ProgramFacts::proxyClones) in
// `byFile` with the other edits inside the function it copies: the arrays of other structs it
// also takes are the new layout's there too (`shadeBounce(RayRef, ..., SphereClusters, ...)`).
void completeProxyClones(std::map<std::string, std::vector<Edit>>& byFile, const std::vector<ComposedText>& clones);

// Moves the edits inside each dual-use function of `byFile` (sorted edits per real path, from the
// original bytes in `contents`) into one insertion after it: the rewritten copy, an overload
// that device arrays select. A function whose edits cross its boundaries keeps them in place.
void moveIntoOverloads(std::map<std::string, std::vector<Edit>>& byFile,
                       const std::map<std::pair<std::string, unsigned>, DualUseFunction>& functions,
                       const std::map<std::string, std::string>& contents);

}  // namespace relayout::rw
