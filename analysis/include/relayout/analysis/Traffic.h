// Predicted memory traffic of one access site under another layout, in 32-byte sectors.
// An estimate from the site's class and mean active lanes, not a replay of its addresses: the
// profile measured sectors for the layout the program ran with (AoS) and nothing else
// (docs/analysis.md, "Predicted traffic"). Reports label these numbers as estimates.
#pragma once

#include "relayout/analysis/Classify.h"

namespace relayout {

// Sectors the site touched as profiled, scaled by the block sampling period.
double measuredSectors(const SiteCounters& c, unsigned blockPeriod);

// Sectors the site would touch if consecutive elements were `strideBytes` apart (SoA: the field's
// size; a cluster: its sub-struct's size; AoS: the struct's size). Coalesced sites are taken as
// stride-1 (lane k reads element i+k): min(one run per lane, ceil(lanes * stride / 32)) per warp.
// Uncoalesced sites touch one sector per lane in any layout; same-address sites keep their
// measured sectors (the distinct elements read do not change).
double predictSectors(const SiteCounters& c, const SiteVerdict& v, unsigned blockPeriod, unsigned fieldBytes,
                      unsigned strideBytes);

}  // namespace relayout
