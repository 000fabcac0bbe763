// Reference classification of one warp-level memory access: the definition of the profile's
// counter columns (docs/formats.md). The device hooks in rt.cuh compute the same numbers with warp
// intrinsics; the GPU self-test and the unit tests hold them to this version.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define RELAYOUT_HD __host__ __device__
#else
#define RELAYOUT_HD
#endif

namespace relayout::rt {

inline constexpr unsigned kWarpSize = 32;
inline constexpr uint64_t kSectorBytes = 32;
inline constexpr uint64_t kLineBytes = 128;
// The paper's coalescing window: lane b is "near" lane a when a <= b <= a + kNearBytes.
inline constexpr uint64_t kNearBytes = 128;

// The six counter columns in profile order.
enum CounterColumn : unsigned {
  kWarpExecs, kLaneExecs, kSectors, kLines, kNearLanes, kSharedWarps, kNumCounterColumns
};

struct WarpCounters {
  uint64_t warpExecs = 0;    // 1 if any lane was active
  uint64_t laneExecs = 0;    // active lanes
  uint64_t sectors = 0;      // distinct 32-byte sectors
  uint64_t lines = 0;        // distinct 128-byte lines
  uint64_t nearLanes = 0;    // sum over active lanes a of other active lanes b with a <= b <= a+128
  uint64_t sharedWarps = 0;  // 1 if two active lanes used the same address

  RELAYOUT_HD uint64_t column(unsigned c) const {
    switch (c) {
      case kWarpExecs: return warpExecs;
      case kLaneExecs: return laneExecs;
      case kSectors: return sectors;
      case kLines: return lines;
      case kNearLanes: return nearLanes;
      default: return sharedWarps;
    }
  }
};

// b lies in [a, a + kNearBytes], written so that it cannot overflow near 2^64.
RELAYOUT_HD inline bool nearAddress(uint64_t a, uint64_t b) { return b >= a && b - a <= kNearBytes; }

// addr[l] is lane l's byte address; lanes whose bit is clear in activeMask are ignored.
RELAYOUT_HD inline WarpCounters classifyWarp(const uint64_t addr[32], uint32_t activeMask) {
  WarpCounters c;
  if (activeMask == 0) return c;
  c.warpExecs = 1;
  for (unsigned k = 0; k < kWarpSize; ++k) {
    if (!(activeMask >> k & 1u)) continue;
    ++c.laneExecs;
    // A lane counts a sector / line / address only if no lower active lane has it already.
    bool newSector = true, newLine = true;
    for (unsigned j = 0; j < k; ++j) {
      if (!(activeMask >> j & 1u)) continue;
      if (addr[j] / kSectorBytes == addr[k] / kSectorBytes) newSector = false;
      if (addr[j] / kLineBytes == addr[k] / kLineBytes) newLine = false;
    }
    c.sectors += newSector;
    c.lines += newLine;
    for (unsigned j = 0; j < kWarpSize; ++j) {
      if (j == k || !(activeMask >> j & 1u)) continue;
      c.nearLanes += nearAddress(addr[k], addr[j]);
      if (addr[j] == addr[k]) c.sharedWarps = 1;
    }
  }
  return c;
}

// Closed form of classifyWarp for a full warp whose lane l reads a0 + l * stride: the common case
// (arrays, struct fields), which the device hook takes without shuffling every address.
RELAYOUT_HD inline WarpCounters classifyUniformStride(uint64_t a0, int64_t stride) {
  const uint64_t step = stride < 0 ? uint64_t(0) - uint64_t(stride) : uint64_t(stride);
  const uint64_t lo = stride < 0 ? a0 - 31 * step : a0, hi = lo + 31 * step;  // used for small steps
  WarpCounters c;
  c.warpExecs = 1;
  c.laneExecs = kWarpSize;
  // Steps below a sector (line) leave no sector (line) between lo and hi untouched.
  c.sectors = step >= kSectorBytes ? kWarpSize : hi / kSectorBytes - lo / kSectorBytes + 1;
  c.lines = step >= kLineBytes ? kWarpSize : hi / kLineBytes - lo / kLineBytes + 1;
  c.sharedWarps = step == 0;
  if (step == 0) {
    c.nearLanes = kWarpSize * (kWarpSize - 1);  // every ordered pair
  } else {
    // Lane pairs d lanes apart are near when d * step <= 128: sum over d of (32 - d). A step
    // beyond the window has none; a smaller one divides in 32 bits (a 64-bit division is a
    // subroutine of about 70 instructions on the GPU, on the classifier's common path).
    const uint64_t perWindow = step > kNearBytes ? 0 : uint32_t(kNearBytes) / uint32_t(step);
    const uint64_t d = perWindow < kWarpSize - 1 ? perWindow : kWarpSize - 1;
    c.nearLanes = d * kWarpSize - d * (d + 1) / 2;
  }
  return c;
}

}  // namespace relayout::rt
