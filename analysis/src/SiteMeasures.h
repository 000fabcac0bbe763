// Per-site measures the reports show beside each other, as Nsight Compute shows a source line's
// memory requests: sectors per warp request, and the ideal for the request's width.
#pragma once

#include "relayout/analysis/Analyze.h"

#include <cmath>
#include <string>

namespace relayout {

// 32-byte sectors one warp-level execution touched (measured under the profile's layout, AoS).
inline double sectorsPerRequest(const SiteEvidence& e) {
  return e.counters.warpExecs ? double(e.counters.sectors) / double(e.counters.warpExecs) : 0.0;
}

// The fewest sectors a request of the site's active lanes can touch at its access width: the
// lanes' bytes laid end to end (4 for 32 lanes reading 4 bytes each).
inline double idealSectorsPerRequest(const SiteEvidence& e) {
  if (!e.counters.warpExecs || !e.site.size) return 0.0;
  const double lanes = double(e.counters.laneExecs) / double(e.counters.warpExecs);
  return std::max(1.0, std::ceil(lanes * e.site.size / 32.0));
}

// The sectors a request touched past the ideal, as Nsight Compute states them: +7.0 (700%) for 32
// sectors where 4 would do.
inline double excessOverIdeal(const SiteEvidence& e) {
  const double ideal = idealSectorsPerRequest(e);
  return ideal > 0 ? std::max(0.0, sectorsPerRequest(e) / ideal - 1) : 0.0;
}

// Nsight Compute's word for the site: coalesced when its requests touch the ideal sectors (within
// 1%), uncoalesced otherwise. The paper's class (below) is another question.
inline const char* nsightWord(const SiteEvidence& e) {
  if (!e.counters.warpExecs) return "not executed";
  return excessOverIdeal(e) <= 0.01 ? "coalesced" : "uncoalesced";
}

// "ideal" or "+700%".
inline std::string excessText(const SiteEvidence& e) {
  const double excess = excessOverIdeal(e);
  return excess <= 0.01 ? "ideal" : "+" + std::to_string(long(std::lround(100 * excess))) + "%";
}

// The paper's class (Nakai & Ohno 2017) under names that do not read as Nsight's: its "coalesced"
// only says some other lane is within 128 bytes (n > 0), which 32 sectors per request can be.
inline const char* paperClassName(AccessClass cls) {
  switch (cls) {
    case AccessClass::NotExecuted:
      return "not executed";
    case AccessClass::Uncoalesced:
      return "isolated (n<1)";
    case AccessClass::Coalesced:
      return "grouped (n>0)";
    case AccessClass::SharedAddress:
      return "same address";
  }
  return "not executed";
}

// What the reports print under their site tables, once.
inline constexpr const char* kSiteColumnsLegend =
    "sectors/request: 32-byte sectors one warp request touched, measured; ideal: the fewest its active "
    "lanes need at the access's width; excess: the sectors past the ideal, as Nsight Compute counts them "
    "(\"uncoalesced\" there for any excess). paper class: the paper's (Nakai & Ohno 2017) class from n, "
    "per active lane the other lanes whose address lies in the 128 bytes from its own: grouped (its "
    "\"coalesced\", n > 0, which 32 lanes reading 4 bytes 32 bytes apart are), isolated (n < 1) or same "
    "address. executions: the site's thread-level executions (one per active lane), all blocks (sampled ones "
    "scaled). weight: the site's vote in the paper's rule, by executions.";

}  // namespace relayout
