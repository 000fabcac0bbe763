// The access classes of seed paper 001 (PAPER.md) and their weights, on one site's counters.
#pragma once

#include "relayout/core/Profile.h"

namespace relayout {

enum class AccessClass {
  NotExecuted,    // no classified execution: carries no weight
  Uncoalesced,    // the paper's UnCoaless: each lane alone in its 128-byte window (n < 1)
  Coalesced,      // the paper's Coaless: lanes share lines (n > 0)
  SharedAddress,  // the paper's ShareCoaless: lanes read the same address (broadcast)
};
const char* toString(AccessClass cls);

struct SiteVerdict {
  AccessClass cls = AccessClass::NotExecuted;
  double n = 0;           // mean coalescing thread count per thread-level execution
  double executions = 0;  // thread-level executions, scaled up by the block sampling period
  double weight = 0;      // > 0 favours AoS, < 0 favours SoA
};

// A site is SharedAddress when at least this share of its warp executions had two lanes on one
// address. The paper's pseudo-code tests n > 0 first, which makes ShareCoaless unreachable; its
// text says a shared address means ShareCoaless, so the share test comes first (docs/analysis.md).
inline constexpr double kSharedWarpThreshold = 0.5;

// Below this mean coalescing thread count a site is uncoalesced. The paper says n == 0; read
// literally, a random gather whose lanes collide once in thousands of warps (n ~ 0.0002) would
// count as coalesced, and weigh towards SoA. n < 1 keeps the paper's meaning: on average no
// other lane falls in a lane's 128-byte window (docs/analysis.md).
inline constexpr double kCoalescedFromN = 1.0;

// The paper's rule: UnCoaless and ShareCoaless weigh +1, Coaless -1 scaled by n/32 (eq. 1), and
// every weight is multiplied by the execution count.
SiteVerdict classifyPaper(const SiteCounters& counters, unsigned blockPeriod);

}  // namespace relayout
