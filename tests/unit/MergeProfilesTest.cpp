// relayout merge: per-rank profiles of one program add up unit by unit and kernel by kernel.
#include "relayout/core/Profile.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

Profile rankProfile(uint64_t scale, const std::string& kernel = "_Z4stepP1P") {
  Profile p;
  p.device = "NVIDIA H200";
  p.created = "2026-11-22T00:00:00Z";
  p.command = {"./app"};
  p.kernels.push_back({"step(P*)", kernel, 2 * scale, 1000 * scale});
  p.units.push_back({"a.cu", "aaa", 4, {{scale, 32 * scale, 4 * scale, scale, 118 * scale, 0}}, {10 * scale}});
  return p;
}

TEST(MergeProfiles, CountersLoopsAndKernelsAddUp) {
  auto merged = mergeProfiles({{"r0.json", rankProfile(1)}, {"r1.json", rankProfile(2)}});
  ASSERT_TRUE(static_cast<bool>(merged)) << llvm::toString(merged.takeError());
  ASSERT_EQ(merged->units.size(), 1u);
  const SiteCounters& c = merged->units[0].sites[0];
  EXPECT_EQ(c.warpExecs, 3u);
  EXPECT_EQ(c.laneExecs, 96u);
  EXPECT_EQ(c.nearLanes, 354u);
  EXPECT_EQ(merged->units[0].loops, std::vector<uint64_t>{30});
  EXPECT_EQ(merged->units[0].blockPeriod, 4u);
  ASSERT_EQ(merged->kernels.size(), 1u);
  EXPECT_EQ(merged->kernels[0].launches, 6u);
  EXPECT_EQ(merged->kernels[0].totalNs, 3000u);
  EXPECT_EQ(merged->mergedFrom, (std::vector<std::string>{"r0.json", "r1.json"}));
  // and the merged file reads back
  auto back = Profile::fromJson(merged->toJson(), "m.json");
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->mergedFrom.size(), 2u);
}

TEST(MergeProfiles, UnitsAndKernelsOfOneRankOnlyAreKept) {
  Profile other = rankProfile(1, "_Z5otherv");
  other.units[0].sha256 = "bbb";
  other.units[0].source = "b.cu";
  auto merged = mergeProfiles({{"r0.json", rankProfile(1)}, {"r1.json", other}});
  ASSERT_TRUE(static_cast<bool>(merged));
  EXPECT_EQ(merged->units.size(), 2u);
  EXPECT_EQ(merged->kernels.size(), 2u);
}

TEST(MergeProfiles, DisagreeingUnitShapesAreRefusedNamingTheFile) {
  Profile resampled = rankProfile(1);
  resampled.units[0].blockPeriod = 8;
  auto merged = mergeProfiles({{"r0.json", rankProfile(1)}, {"r1.json", resampled}});
  ASSERT_FALSE(static_cast<bool>(merged));
  std::string message = llvm::toString(merged.takeError());
  EXPECT_EQ(message.rfind("r1.json: unit a.cu has 1 sites sampled 1 block in 8", 0), 0u) << message;
}

TEST(MergeProfiles, NothingToMergeIsAnError) {
  EXPECT_FALSE(static_cast<bool>(mergeProfiles({})));
  llvm::consumeError(mergeProfiles({}).takeError());
}

}  // namespace
}  // namespace relayout
