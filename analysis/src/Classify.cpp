#include "relayout/analysis/Classify.h"

namespace relayout {

const char* toString(AccessClass cls) {
  switch (cls) {
    case AccessClass::NotExecuted: return "not executed";
    case AccessClass::Uncoalesced: return "uncoalesced";
    case AccessClass::Coalesced: return "coalesced";
    case AccessClass::SharedAddress: return "same-address";
  }
  return "not executed";
}

SiteVerdict classifyPaper(const SiteCounters& c, unsigned blockPeriod) {
  SiteVerdict v;
  if (c.warpExecs == 0 || c.laneExecs == 0) return v;
  v.executions = static_cast<double>(c.laneExecs) * (blockPeriod == 0 ? 1 : blockPeriod);
  v.n = static_cast<double>(c.nearLanes) / static_cast<double>(c.laneExecs);
  double sharedShare = static_cast<double>(c.sharedWarps) / static_cast<double>(c.warpExecs);
  if (sharedShare >= kSharedWarpThreshold) {
    v.cls = AccessClass::SharedAddress;
    v.weight = +1.0 * v.executions;
  } else if (v.n < kCoalescedFromN) {
    v.cls = AccessClass::Uncoalesced;
    v.weight = +1.0 * v.executions;
  } else {
    v.cls = AccessClass::Coalesced;
    v.weight = -1.0 * (v.n / 32.0) * v.executions;
  }
  return v;
}

}  // namespace relayout
