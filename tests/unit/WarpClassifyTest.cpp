// The reference warp classification (runtime/include/relayout/warp_classify.h) on patterns whose
// counters are worked out by hand below; the GPU hooks are held to this reference by
// runtime/selftest.
#include "relayout/warp_classify.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

using relayout::rt::classifyWarp;
using relayout::rt::WarpCounters;

namespace {

constexpr uint64_t kBase = 0x7f0000000000ull;  // 128-byte aligned, like a cudaMalloc result

WarpCounters run(const std::function<uint64_t(unsigned)>& addressOfLane, uint32_t mask = ~0u) {
  uint64_t addr[32];
  for (unsigned l = 0; l < 32; ++l) addr[l] = addressOfLane(l);
  return classifyWarp(addr, mask);
}

void expectCounters(const WarpCounters& c, uint64_t lanes, uint64_t sectors, uint64_t lines,
                    uint64_t nearLanes, uint64_t shared) {
  EXPECT_EQ(c.warpExecs, 1u);
  EXPECT_EQ(c.laneExecs, lanes);
  EXPECT_EQ(c.sectors, sectors);
  EXPECT_EQ(c.lines, lines);
  EXPECT_EQ(c.nearLanes, nearLanes);
  EXPECT_EQ(c.sharedWarps, shared);
}

}  // namespace

// 32 consecutive floats: 128 bytes = 4 sectors, 1 line. Lane k sees every higher lane within 128
// bytes (4*31 = 124), so near = sum_k (31 - k) = 496.
TEST(WarpClassify, ConsecutiveFloats) {
  expectCounters(run([](unsigned l) { return kBase + 4 * l; }), 32, 4, 1, 496, 0);
}

// One float field of a 32-byte struct: every lane its own sector, 4 lanes per line. Lane k sees
// lanes k+1..k+4 (32*4 = 128 is inside the window): 28*4 + 3+2+1+0 = 118.
TEST(WarpClassify, StructStride32) {
  expectCounters(run([](unsigned l) { return kBase + 32 * l + 12; }), 32, 32, 8, 118, 0);
}

// All lanes on one address: one sector, one line, each lane sees the 31 others.
TEST(WarpClassify, AllSameAddress) {
  expectCounters(run([](unsigned) { return kBase + 64; }), 32, 1, 1, 32 * 31, 1);
}

// The window is inclusive: with a 128-byte stride only the next lane is near (31 pairs);
// with 129 bytes none is.
TEST(WarpClassify, WindowEdgeIsInclusive) {
  expectCounters(run([](unsigned l) { return kBase + 128 * l; }), 32, 32, 32, 31, 0);
  expectCounters(run([](unsigned l) { return kBase + 129 * l; }), 32, 32, 32, 0, 0);
}

// Near counts only lanes at or above a lane's address, whatever the lane order.
TEST(WarpClassify, DescendingAddresses) {
  expectCounters(run([](unsigned l) { return kBase + 4 * (31 - l); }), 32, 4, 1, 496, 0);
}

// A float array that starts 16 bytes into a sector spans 5 sectors and 2 lines.
TEST(WarpClassify, MisalignedStart) {
  expectCounters(run([](unsigned l) { return kBase + 16 + 4 * l; }), 32, 5, 2, 496, 0);
}

// Lanes 2m and 2m+1 share address 8m: 16 addresses over 128 bytes (4 sectors, 1 line); lane k
// sees every other lane whose pair index is >= its own: sum over pairs m of 2*(31 - 2m) = 512.
TEST(WarpClassify, PairsShareAddresses) {
  expectCounters(run([](unsigned l) { return kBase + 8 * (l / 2); }), 32, 4, 1, 512, 1);
}

// float3 (12 bytes): 384 bytes from the line start = 12 sectors, 3 lines. Lane k sees lanes
// k+1..k+10 (12*10 = 120 <= 128 < 132): 22*10 + 9+8+...+0 = 265.
TEST(WarpClassify, Float3Stride12) {
  expectCounters(run([](unsigned l) { return kBase + 12 * l; }), 32, 12, 3, 265, 0);
}

// Inactive lanes neither count nor are seen; their addresses would otherwise change every column.
TEST(WarpClassify, PartialMaskLowHalf) {
  auto addr = [](unsigned l) { return l < 16 ? kBase + 4 * l : kBase + 4 * (l - 16); };
  // Lanes 0..15 read 64 bytes: 2 sectors, 1 line, near = 15+14+...+0 = 120, no address shared
  // (the inactive upper half would share every address).
  expectCounters(run(addr, 0x0000FFFFu), 16, 2, 1, 120, 0);
  // All 32 lanes: 496 lane pairs, all within 64 bytes; the 16 pairs on one address count from both
  // sides, the others once: 496 + 16 = 512.
  expectCounters(run(addr, ~0u), 32, 2, 1, 512, 1);
}

// Odd lanes of a consecutive-float pattern: addresses 4, 12, ..., 124: 4 sectors, 1 line,
// near = 15 + 14 + ... + 0 = 120.
TEST(WarpClassify, PartialMaskOddLanes) {
  expectCounters(run([](unsigned l) { return kBase + 4 * l; }, 0xAAAAAAAAu), 16, 4, 1, 120, 0);
}

// One active lane: one sector, one line, nobody near, nothing shared.
TEST(WarpClassify, SingleLane) {
  expectCounters(run([](unsigned l) { return kBase + 1000 * l; }, 1u << 17), 1, 1, 1, 0, 0);
}

TEST(WarpClassify, NoActiveLaneCountsNothing) {
  WarpCounters c = run([](unsigned l) { return kBase + 4 * l; }, 0);
  EXPECT_EQ(c.warpExecs, 0u);
  EXPECT_EQ(c.laneExecs, 0u);
  EXPECT_EQ(c.sectors, 0u);
  EXPECT_EQ(c.lines, 0u);
  EXPECT_EQ(c.nearLanes, 0u);
  EXPECT_EQ(c.sharedWarps, 0u);
}

// Addresses far apart (more than 32 bits between lanes), and near the top of the address space
// where a + 128 would wrap around.
TEST(WarpClassify, LargeAndWrappingAddresses) {
  expectCounters(run([](unsigned l) { return kBase + (uint64_t(l) << 33); }), 32, 32, 32, 0, 0);
  const uint64_t top = ~uint64_t(0) - 127;  // the last 128-byte line
  // 32 lanes on 4-byte steps from top: 4 sectors of the last line; near as for consecutive floats.
  expectCounters(run([&](unsigned l) { return top + 4 * l; }), 32, 4, 1, 496, 0);
  // A lane at address 0 must not look near a lane at the top (0 - top wraps to 128).
  expectCounters(run([&](unsigned l) { return l == 0 ? top : 0; }, 0x3u), 2, 2, 2, 0, 0);
}

// The closed form the device hook uses for full warps with one stride must agree with the
// reference for every stride and alignment (strides past 128 bytes behave alike, so +-300 with a
// few large ones covers every case of the formulas).
TEST(WarpClassify, UniformStrideClosedFormMatchesReference) {
  std::vector<int64_t> strides;
  for (int64_t s = -300; s <= 300; ++s) strides.push_back(s);
  for (int64_t s : {1000ll, 4096ll, 1ll << 33, -(1ll << 33)}) strides.push_back(s);
  unsigned mismatches = 0;
  for (int64_t stride : strides)
    for (uint64_t start = 0; start < 256; ++start) {
      // Keep every lane inside the address space: lane 0 high enough for negative strides.
      const uint64_t a0 = kBase + start + (stride < 0 ? 31 * uint64_t(-stride) : 0);
      const WarpCounters want = run([&](unsigned l) { return a0 + uint64_t(stride) * l; });
      const WarpCounters got = relayout::rt::classifyUniformStride(a0, stride);
      for (unsigned k = 0; k < relayout::rt::kNumCounterColumns; ++k)
        if (got.column(k) != want.column(k) && ++mismatches <= 5)
          ADD_FAILURE() << "stride " << stride << " start " << start << " column " << k << ": "
                        << got.column(k) << " != " << want.column(k);
    }
  EXPECT_EQ(mismatches, 0u);
}

// The column accessor follows the profile's column order.
TEST(WarpClassify, ColumnOrder) {
  WarpCounters c{1, 2, 3, 4, 5, 6};
  for (unsigned k = 0; k < relayout::rt::kNumCounterColumns; ++k) EXPECT_EQ(c.column(k), k + 1u);
}
