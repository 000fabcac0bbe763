// Per-site measures the reports show beside each other, as Nsight Compute shows a source line's
// memory requests: sectors per warp request, and the ideal for the request's width.
#pragma once

#include "relayout/analysis/Analyze.h"

#include <cmath>

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

// What the reports print under their site tables, once.
inline constexpr const char* kSiteColumnsLegend =
    "n: per active lane, the other lanes whose address lies in the 128 bytes from its own (the paper's "
    "coalescing count; its class calls a site coalesced when n >= 1, so 32 lanes reading 4 bytes 32 bytes "
    "apart are coalesced there). sectors/request: 32-byte sectors one warp request touched, measured; ideal: "
    "the fewest its active lanes need at the access's width, as Nsight Compute compares them. weight: the "
    "site's vote in the paper's rule, by executions.";

}  // namespace relayout
