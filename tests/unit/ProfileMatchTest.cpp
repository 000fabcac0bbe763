// Profiles that survive edits (core/ProfileMatch.h): a site map of an edited source reuses the
// counters of functions whose token hash is unchanged, by site position, and refuses the structs
// that changed functions decided.
#include "relayout/analysis/Analyze.h"
#include "relayout/core/Plan.h"
#include "relayout/core/ProfileMatch.h"

#include <gtest/gtest.h>
#include <llvm/Support/Error.h>

using namespace relayout;

namespace {

SiteInfo site(unsigned id, const std::string& function, const std::string& structName, const std::string& field,
              unsigned offset, unsigned position) {
  SiteInfo s;
  s.id = id;
  s.function = function;
  s.kernels = {function};
  s.structName = structName;
  s.field = field;
  s.offset = offset;
  s.size = 4;
  s.position = position;
  s.location = {"a.cu", 10 + id, 3};
  return s;
}

// a.cu as profiled: kernel `kick` reads P.x and P.y (sites 0 and 1), kernel `drift` reads S.a
// (site 2).
SiteMap recordedMap() {
  SiteMap map;
  map.sourcePath = "a.cu";
  map.sourceSha256 = "old-sha";
  map.structs = {{"P", {"a.cu", 1, 8}, 8, 4, {{"x", "float", 0, 4, 4, {}}, {"y", "float", 4, 4, 4, {}}}},
                 {"S", {"a.cu", 2, 8}, 4, 4, {{"a", "float", 0, 4, 4, {}}}}};
  map.functions = {{"kick", true, {"a.cu", 5, 1}, {"kick"}, {}, "hash-kick"},
                   {"drift", true, {"a.cu", 7, 1}, {"drift"}, {}, "hash-drift"}};
  map.kernels = {"kick", "drift"};
  map.sites = {site(0, "kick", "P", "x", 0, 0), site(1, "kick", "P", "y", 4, 1), site(2, "drift", "S", "a", 0, 0)};
  return map;
}

// Coalesced reads of P (4 sectors per warp), gathers of S (32 sectors per warp).
Profile recordedProfile() {
  UnitProfile unit;
  unit.source = "a.cu";
  unit.sha256 = "old-sha";
  unit.sites = {{100, 3200, 400, 100, 99200, 0}, {50, 1600, 200, 50, 49600, 0}, {10, 320, 320, 320, 0, 0}};
  unit.functions = {{"kick", "hash-kick", {0, 1}, {{8, 0, 0}, {8, 1, 4}}},
                    {"drift", "hash-drift", {2}, {{4, 0, 0}}}};
  Profile profile;
  profile.device = "Fake GPU";
  profile.units = {unit};
  return profile;
}

// The same source after an edit that moved `drift` above `kick` and added a comment: every
// function hashes the same, the site ids changed.
SiteMap reorderedMap() {
  SiteMap map = recordedMap();
  map.sourceSha256 = "new-sha";
  map.sites = {site(0, "drift", "S", "a", 0, 0), site(1, "kick", "P", "x", 0, 0), site(2, "kick", "P", "y", 4, 1)};
  return map;
}

ProfileForAnalysis match(const SiteMap& map) {
  auto matched = matchProfile(recordedProfile(), "p.json", {&map});
  if (!matched) {
    ADD_FAILURE() << llvm::toString(matched.takeError());
    return {};
  }
  return std::move(*matched);
}

Analysis analyzeWith(const SiteMap& map, const ProfileForAnalysis& matched) {
  AnalyzeOptions options;
  options.mode = AnalyzeMode::Paper;
  options.refusedStructs = matched.refusedStructs();
  auto analysis = analyze({{"a.sites.json", map}}, matched.profile, "p.json", options);
  if (!analysis) {
    ADD_FAILURE() << llvm::toString(analysis.takeError());
    return {};
  }
  return std::move(*analysis);
}

}  // namespace

TEST(ProfileMatch, SameHashCarriesCountersByPosition) {
  ProfileForAnalysis m = match(reorderedMap());
  ASSERT_EQ(m.units.size(), 1u);
  EXPECT_FALSE(m.units[0].sameSource);
  EXPECT_TRUE(m.units[0].changedFunctions.empty());
  EXPECT_TRUE(m.units[0].refusedStructs.empty());
  const UnitProfile& unit = m.profile.units[m.units[0].unitIndex];
  EXPECT_EQ(unit.sha256, "new-sha");
  ASSERT_EQ(unit.sites.size(), 3u);
  EXPECT_EQ(unit.sites[0].sectors, 320u);   // drift's site, recorded as id 2
  EXPECT_EQ(unit.sites[1].laneExecs, 3200u);  // kick position 0, recorded as id 0
  EXPECT_EQ(unit.sites[2].laneExecs, 1600u);  // kick position 1, recorded as id 1
}

TEST(ProfileMatch, UnrelatedEditGivesTheSamePlan) {
  const SiteMap recorded = recordedMap();
  Analysis before = analyzeWith(recorded, match(recorded));
  const SiteMap edited = reorderedMap();
  Analysis after = analyzeWith(edited, match(edited));
  ASSERT_EQ(before.plan.structs.size(), 2u);
  ASSERT_EQ(after.plan.structs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after.plan.structs[i].name, before.plan.structs[i].name);
    EXPECT_EQ(after.plan.structs[i].layout, before.plan.structs[i].layout);
    EXPECT_DOUBLE_EQ(after.plan.structs[i].score, before.plan.structs[i].score);
  }
  EXPECT_EQ(before.plan.findStruct("P")->layout, Layout::SoA);  // the coalesced one: a real decision
  // The plan records the hashes of the functions with sites, for rewrite to check.
  ASSERT_EQ(after.plan.sources.size(), 1u);
  ASSERT_EQ(after.plan.sources[0].functions.size(), 2u);
  EXPECT_EQ(after.plan.sources[0].functions[0].name, "kick");
  EXPECT_EQ(after.plan.sources[0].functions[0].hash, "hash-kick");
}

TEST(ProfileMatch, ChangedFunctionIsListedAndItsStructRefused) {
  SiteMap edited = reorderedMap();
  edited.functions[1].hash = "hash-drift-2";
  ProfileForAnalysis m = match(edited);
  ASSERT_EQ(m.units[0].changedFunctions.size(), 1u);
  EXPECT_EQ(m.units[0].changedFunctions[0], "drift (hash hash-drift-2, recorded hash-drift)");
  ASSERT_EQ(m.units[0].refusedStructs.count("S"), 1u);
  EXPECT_EQ(m.units[0].refusedStructs.count("P"), 0u);
  const UnitProfile& unit = m.profile.units[0];
  EXPECT_EQ(unit.sites[0].warpExecs, 0u);  // drift's site: no counters
  EXPECT_EQ(unit.sites[1].laneExecs, 3200u);

  Analysis a = analyzeWith(edited, m);
  const StructPlan* s = a.plan.findStruct("S");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->layout, Layout::AoS);
  EXPECT_NE(s->reason.find("not decided"), std::string::npos) << s->reason;
  EXPECT_NE(s->reason.find("drift"), std::string::npos) << s->reason;
  EXPECT_EQ(a.plan.findStruct("P")->layout, Layout::SoA);  // decided as usual
}

TEST(ProfileMatch, NewFunctionRefusesTheStructsItTouches) {
  SiteMap edited = reorderedMap();
  edited.functions.push_back({"init", true, {"a.cu", 9, 1}, {"init"}, {}, "hash-init"});
  edited.sites.push_back(site(3, "init", "P", "x", 0, 0));
  ProfileForAnalysis m = match(edited);
  ASSERT_EQ(m.units[0].changedFunctions.size(), 1u);
  EXPECT_EQ(m.units[0].changedFunctions[0], "init (new)");
  EXPECT_EQ(m.units[0].refusedStructs.count("P"), 1u);
  EXPECT_EQ(m.units[0].refusedStructs.count("S"), 0u);
}

TEST(ProfileMatch, ChangedStructDefinitionIsRefused) {
  SiteMap edited = reorderedMap();
  edited.structs[0].fields.insert(edited.structs[0].fields.begin(), FieldInfo{"id", "int", 0, 4, 4, {}});
  edited.structs[0].fields[1].offset = 4, edited.structs[0].fields[2].offset = 8;
  edited.structs[0].size = 12;
  edited.sites[1].offset = 4, edited.sites[2].offset = 8;
  ProfileForAnalysis m = match(edited);
  EXPECT_TRUE(m.units[0].changedFunctions.empty());
  ASSERT_EQ(m.units[0].refusedStructs.count("P"), 1u);
  EXPECT_NE(m.units[0].refusedStructs.at("P").find("definition changed"), std::string::npos);
  EXPECT_EQ(m.units[0].refusedStructs.count("S"), 0u);
}

TEST(ProfileMatch, NoMatchingFunctionIsRefusedWithTheList) {
  SiteMap edited = reorderedMap();
  edited.functions[0].hash = "k2";
  edited.functions[1].hash = "d2";
  auto matched = matchProfile(recordedProfile(), "p.json", {&edited});
  ASSERT_FALSE(bool(matched));
  std::string message = llvm::toString(matched.takeError());
  EXPECT_NE(message.find("p.json: has no data for a.cu as it is now"), std::string::npos) << message;
  EXPECT_NE(message.find("kick (hash k2, recorded hash-kick), drift (hash d2, recorded hash-drift)"),
            std::string::npos)
      << message;
}

TEST(ProfileMatch, ProfileWithoutFunctionsNeedsTheSameSource) {
  Profile old = recordedProfile();
  old.units[0].functions.clear();
  SiteMap edited = reorderedMap();
  auto matched = matchProfile(old, "p.json", {&edited});
  ASSERT_FALSE(bool(matched));
  EXPECT_NE(llvm::toString(matched.takeError()).find("without function hashes"), std::string::npos);
  const SiteMap recorded = recordedMap();
  EXPECT_TRUE(bool(matchProfile(old, "p.json", {&recorded})));
}

TEST(ProfileMatch, CountsAreScaledToTheWholeRun) {
  Profile profile = recordedProfile();
  profile.units[0].kernelBlocks = {{"kick", 100, 10}, {"drift", 4, 4}};
  const SiteMap edited = reorderedMap();
  auto matched = matchProfile(profile, "p.json", {&edited});
  ASSERT_TRUE(bool(matched)) << llvm::toString(matched.takeError());
  const UnitProfile& unit = matched->profile.units[0];
  EXPECT_EQ(unit.sites[1].laneExecs, 32000u);  // kick x10, by the current map's functions
  EXPECT_EQ(unit.sites[0].laneExecs, 320u);    // drift x1
}

TEST(PlanCheck, EditedSourceFitsWhileItsFunctionsHashTheSame) {
  const SiteMap recorded = recordedMap();
  Analysis a = analyzeWith(recorded, match(recorded));
  const SiteMap edited = reorderedMap();
  EXPECT_FALSE(bool(llvm::errorToBool(checkPlanFitsSiteMap(a.plan, "plan.json", edited))));

  SiteMap changed = edited;
  changed.functions[0].hash = "hash-kick-2";
  std::string message = llvm::toString(checkPlanFitsSiteMap(a.plan, "plan.json", changed));
  EXPECT_NE(message.find("plan.json: was made for another version of a.cu"), std::string::npos) << message;
  EXPECT_NE(message.find("kick (hash hash-kick-2, planned hash-kick)"), std::string::npos) << message;

  SiteMap grown = edited;
  grown.structs[0].fields.push_back(FieldInfo{"z", "float", 8, 4, 4, {}});
  message = llvm::toString(checkPlanFitsSiteMap(a.plan, "plan.json", grown));
  EXPECT_NE(message.find("struct P (fields differ)"), std::string::npos) << message;

  Plan withoutHashes = a.plan;
  withoutHashes.sources[0].functions.clear();
  message = llvm::toString(checkPlanFitsSiteMap(withoutHashes, "plan.json", edited));
  EXPECT_NE(message.find("records no function hashes"), std::string::npos) << message;
}
