// The access classes and weights of seed paper 001 on hand-made counters with known answers.
#include "relayout/analysis/Classify.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

// One warp of 32 lanes reading consecutive 32-byte structs' first float, `warps` times.
SiteCounters stridedStruct(uint64_t warps) {
  // lane k sees lanes k+1..k+4 within [a, a+128]: 4 each for k <= 27, then 3, 2, 1, 0.
  const uint64_t nearPerWarp = 28 * 4 + 3 + 2 + 1 + 0;
  return {warps, warps * 32, warps * 32, warps * 8, warps * nearPerWarp, 0};
}

TEST(PaperRule, StridedStructAccessIsCoalescedAndWeighsTowardsSoA) {
  SiteVerdict v = classifyPaper(stridedStruct(100), 1);
  EXPECT_EQ(v.cls, AccessClass::Coalesced);
  EXPECT_DOUBLE_EQ(v.n, 118.0 / 32.0);
  EXPECT_DOUBLE_EQ(v.executions, 3200.0);
  EXPECT_DOUBLE_EQ(v.weight, -(118.0 / 32.0) / 32.0 * 3200.0);
}

TEST(PaperRule, PaperWorkedExampleOfBothCorrections) {
  // PAPER.md: n = 11 over 800 executions weighs -1 * 11/32 * 800 (the paper rounds 11/32 to 0.34: -272).
  SiteCounters c{25, 800, 100, 25, 11 * 800, 0};
  SiteVerdict v = classifyPaper(c, 1);
  EXPECT_EQ(v.cls, AccessClass::Coalesced);
  EXPECT_DOUBLE_EQ(v.weight, -275.0);
}

TEST(PaperRule, LanesAloneOnTheirLinesAreUncoalesced) {
  SiteCounters c{10, 320, 320, 320, 0, 0};
  SiteVerdict v = classifyPaper(c, 1);
  EXPECT_EQ(v.cls, AccessClass::Uncoalesced);
  EXPECT_DOUBLE_EQ(v.n, 0.0);
  EXPECT_DOUBLE_EQ(v.weight, 320.0);
}

TEST(PaperRule, RareCollisionsOfARandomGatherStayUncoalesced) {
  // Measured on an H200 (toy_gather): random indices put two lanes within 128 bytes now and then.
  SiteCounters c{5767168, 184549376, 184549310, 184549300, 45000, 0};
  SiteVerdict v = classifyPaper(c, 1);
  EXPECT_GT(v.n, 0.0);
  EXPECT_EQ(v.cls, AccessClass::Uncoalesced);
  EXPECT_DOUBLE_EQ(v.weight, 184549376.0);
}

TEST(PaperRule, StructsOf128BytesAreUncoalescedAt64Coalesced) {
  // 128-byte stride: each lane sees only its neighbour at exactly a+128, n = 31/32.
  SiteCounters wide{1, 32, 32, 32, 31, 0};
  EXPECT_EQ(classifyPaper(wide, 1).cls, AccessClass::Uncoalesced);
  // 64-byte stride: two neighbours in the window for most lanes.
  SiteCounters half{1, 32, 32, 16, 30 * 2 + 1, 0};
  EXPECT_EQ(classifyPaper(half, 1).cls, AccessClass::Coalesced);
}

TEST(PaperRule, SharedAddressWinsOverCoalescedWhenMostWarpsShare) {
  // every lane reads the same address: n = 31 but it is a broadcast, which favours AoS.
  SiteCounters c{10, 320, 10, 10, 320 * 31, 10};
  SiteVerdict v = classifyPaper(c, 1);
  EXPECT_EQ(v.cls, AccessClass::SharedAddress);
  EXPECT_DOUBLE_EQ(v.weight, 320.0);
}

TEST(PaperRule, OccasionalSharingStaysCoalesced) {
  SiteCounters c{10, 320, 40, 10, 320 * 3, 4};  // 4 of 10 warps shared an address
  EXPECT_EQ(classifyPaper(c, 1).cls, AccessClass::Coalesced);
}

TEST(PaperRule, NeverExecutedSitesCarryNoWeight) {
  SiteVerdict v = classifyPaper({}, 1);
  EXPECT_EQ(v.cls, AccessClass::NotExecuted);
  EXPECT_DOUBLE_EQ(v.weight, 0.0);
}

TEST(PaperRule, SampledBlocksScaleExecutionCounts) {
  SiteVerdict full = classifyPaper(stridedStruct(100), 1);
  SiteVerdict sampled = classifyPaper(stridedStruct(100), 8);
  EXPECT_DOUBLE_EQ(sampled.executions, 8 * full.executions);
  EXPECT_DOUBLE_EQ(sampled.weight, 8 * full.weight);
  EXPECT_DOUBLE_EQ(sampled.n, full.n);
}

}  // namespace
}  // namespace relayout
