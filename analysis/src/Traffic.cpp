#include "relayout/analysis/Traffic.h"

#include <algorithm>
#include <cmath>

namespace relayout {

static constexpr double kSectorBytes = 32;

double measuredSectors(const SiteCounters& c, unsigned blockPeriod) {
  return static_cast<double>(c.sectors) * (blockPeriod == 0 ? 1 : blockPeriod);
}

double predictSectors(const SiteCounters& c, const SiteVerdict& v, unsigned blockPeriod, unsigned fieldBytes,
                      unsigned strideBytes) {
  if (c.warpExecs == 0 || c.laneExecs == 0) return 0;
  double period = blockPeriod == 0 ? 1 : blockPeriod;
  // A field wider than a sector spans several of them, whatever the layout.
  double perLane = std::max(1.0, std::ceil(fieldBytes / kSectorBytes));
  switch (v.cls) {
    case AccessClass::NotExecuted: return 0;
    case AccessClass::SharedAddress: return measuredSectors(c, blockPeriod);
    case AccessClass::Uncoalesced: return static_cast<double>(c.laneExecs) * perLane * period;
    case AccessClass::Coalesced: {
      double lanes = static_cast<double>(c.laneExecs) / static_cast<double>(c.warpExecs);
      double perWarp = std::min(lanes * perLane, std::ceil(lanes * std::max(strideBytes, fieldBytes) / kSectorBytes));
      return static_cast<double>(c.warpExecs) * perWarp * period;
    }
  }
  return 0;
}

}  // namespace relayout
