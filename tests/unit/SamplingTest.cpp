// scaleToWholeRun: counts from sampled blocks and launches scaled back per kernel.
#include "relayout/core/Sampling.h"

#include <gtest/gtest.h>

using namespace relayout;

namespace {

// Kernel `often` ran 1000 blocks and classified 10 (launch sampling); `rarely` ran 8 and
// classified all 8. Site 0 is in `often`, site 1 in `rarely`, site 2 in helper `load` called by
// both (and once from an unknown kernel); loop 0 in `often`, loop 1 in `load`.
SiteMap siteMap() {
  SiteMap map;
  map.sourceSha256 = "abc";
  map.functions = {{"often", true, {}, {"often"}, {}},
                   {"rarely", true, {}, {"rarely"}, {}},
                   {"load", false, {}, {"often", "rarely"}, {}}};
  map.kernels = {"often", "rarely"};
  for (unsigned id = 0; id < 3; ++id) {
    SiteInfo s;
    s.id = id;
    s.function = id == 0 ? "often" : id == 1 ? "rarely" : "load";
    map.sites.push_back(s);
  }
  map.loops = {{0, "for", "often", {}, std::nullopt}, {1, "for", "load", {}, std::nullopt}};
  return map;
}

UnitProfile unitProfile() {
  UnitProfile unit;
  unit.sha256 = "abc";
  unit.blockPeriod = 4;
  unit.sites = {{10, 320, 40, 10, 0, 0}, {5, 160, 5, 5, 0, 5}, {7, 224, 70, 21, 0, 0}};
  unit.kernelSites = {{2, "often", {2, 64, 20, 6, 0, 0}}, {2, "rarely", {4, 128, 40, 12, 0, 0}},
                      {2, "?", {1, 32, 10, 3, 0, 0}}};
  unit.kernelBlocks = {{"often", 1000, 10}, {"rarely", 8, 8}};
  unit.loops = {100, 50};
  return unit;
}

}  // namespace

TEST(Sampling, EachKernelScalesByItsOwnBlocks) {
  UnitProfile unit = unitProfile();
  scaleToWholeRun(unit, siteMap());
  EXPECT_EQ(unit.blockPeriod, 1u);
  EXPECT_EQ(unit.sites[0].laneExecs, 32000u);  // x100
  EXPECT_EQ(unit.sites[0].sectors, 4000u);
  EXPECT_EQ(unit.sites[1].laneExecs, 160u);  // x1: every block classified
  EXPECT_EQ(unit.sites[1].sharedWarps, 5u);
  // The helper's rows: often x100, rarely x1, unknown caller x block_period.
  EXPECT_EQ(unit.kernelSites[0].counters.laneExecs, 6400u);
  EXPECT_EQ(unit.kernelSites[1].counters.laneExecs, 128u);
  EXPECT_EQ(unit.kernelSites[2].counters.laneExecs, 128u);
  EXPECT_EQ(unit.sites[2].laneExecs, 6400u + 128u + 128u);
  EXPECT_EQ(unit.sites[2].sectors, 2000u + 40u + 40u);
  EXPECT_EQ(unit.loops[0], 10000u);
  // The helper's loop scales as its accesses did: warp executions 2*100 + 4 + 1*4 over 7.
  EXPECT_EQ(unit.loops[1], static_cast<uint64_t>(std::llround(50.0 * (200.0 + 4.0 + 4.0) / 7.0)));
}

TEST(Sampling, ProfilesWithoutBlockCountsAreLeftAlone) {
  UnitProfile unit = unitProfile();
  unit.kernelBlocks.clear();
  const UnitProfile before = unit;
  scaleToWholeRun(unit, siteMap());
  EXPECT_EQ(unit.blockPeriod, 4u);
  EXPECT_EQ(unit.sites[0].laneExecs, before.sites[0].laneExecs);
  EXPECT_EQ(unit.loops, before.loops);
}

TEST(Sampling, OnlyUnitsOfTheGivenSourcesAreScaled) {
  Profile profile;
  profile.units = {unitProfile(), unitProfile()};
  profile.units[1].sha256 = "other";
  const SiteMap map = siteMap();
  scaleToWholeRun(profile, {&map});
  EXPECT_EQ(profile.units[0].sites[0].laneExecs, 32000u);
  EXPECT_EQ(profile.units[1].sites[0].laneExecs, 320u);
}

// Executions sampled within classified blocks multiply every kernel's factor, and the unknown
// caller's (block period x exec period).
TEST(Sampling, ExecutionSamplingScalesEverything) {
  UnitProfile unit = unitProfile();
  unit.execPeriod = 8;
  scaleToWholeRun(unit, siteMap());
  EXPECT_EQ(unit.execPeriod, 1u);
  EXPECT_EQ(unit.sites[0].laneExecs, 320u * 100 * 8);
  EXPECT_EQ(unit.sites[1].laneExecs, 160u * 8);
  EXPECT_EQ(unit.kernelSites[2].counters.laneExecs, 32u * 4 * 8);
}
