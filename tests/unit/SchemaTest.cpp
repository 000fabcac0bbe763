// Every file relayout reads is checked against its schema (docs/formats/*.schema.json, embedded)
// and then against the rules a schema cannot state; each error is one line:
// FILE: JSON-POINTER: expected ..., got ...
#include "relayout/core/Plan.h"
#include "relayout/core/Profile.h"
#include "relayout/core/ProfileMatch.h"
#include "relayout/core/Schema.h"
#include "relayout/core/SiteMap.h"
#include "relayout/formats/Trace.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

using nlohmann::json;

json siteMapDoc() {
  SiteMap map;
  map.sourcePath = "a.cu";
  map.sourceSha256 = std::string(64, 'a');
  map.structs.push_back({"P", {"a.cu", 1, 8}, 8, 4, {{"x", "float", 0, 4, 4, {}}, {"y", "float", 4, 4, 4, {}}}});
  map.functions.push_back({"k", true, {"a.cu", 2, 17}, {"k"}, {}, "h"});
  map.loops.push_back({0, "for", "k", {"a.cu", 3, 3}, std::nullopt});
  map.loops.push_back({1, "while", "k", {"a.cu", 4, 5}, 0u});
  SiteInfo s;
  s.id = 0;
  s.location = {"a.cu", 5, 5};
  s.structName = "P";
  s.field = "y";
  s.offset = 4;
  s.size = 4;
  s.function = "k";
  s.kernels = {"k"};
  s.loop = 1;
  map.sites.push_back(s);
  return map.toJson();
}

json profileDoc() {
  ProfileData p;
  p.device = "test";
  p.created = "now";
  UnitProfile unit{"a.cu", std::string(64, 'a'), 1, {{10, 320, 40, 10, 0, 2}}, {5, 9}};
  unit.kernelBlocks.push_back({"k", 12, 3});
  p.units.push_back(unit);
  return json(profileToJson(p));
}

json planDoc() {
  Plan plan;
  plan.mode = "paper";
  plan.sources.push_back({"a.cu", "abc"});
  plan.structs.push_back({"P", {"x", "y", "z"}, Layout::SoA, soaClusters({"x", "y", "z"}), -3.5, "why", {}});
  return plan.toJson();
}

template <class T>
std::string errorOf(llvm::Expected<T> result) {
  if (result) return "(accepted)";
  return llvm::toString(result.takeError());
}

std::string siteMapError(const json& doc) { return errorOf(SiteMap::fromJson(doc, "s.json")); }
std::string profileError(const json& doc) { return errorOf(Profile::fromJson(doc, "p.json")); }
std::string planError(const json& doc) { return errorOf(Plan::fromJson(doc, "plan.json")); }

TEST(Schema, ValidDocumentsPass) {
  EXPECT_EQ(siteMapError(siteMapDoc()).find("error"), std::string::npos);
  EXPECT_TRUE(static_cast<bool>(SiteMap::fromJson(siteMapDoc(), "s.json")));
  EXPECT_TRUE(static_cast<bool>(Profile::fromJson(profileDoc(), "p.json")));
  EXPECT_TRUE(static_cast<bool>(Plan::fromJson(planDoc(), "plan.json")));
}

TEST(Schema, PointerEscapesAndValuesShowBriefly) {
  EXPECT_EQ(jsonPointer({"units", 0, "a/b~c"}), "/units/0/a~1b~0c");
  EXPECT_EQ(shownValue(json::array({1, 2})), "an array of 2");
  EXPECT_EQ(shownValue(json("x")), "\"x\"");
}

TEST(SiteMapSchema, WrongTypesRangesAndNamesAreRefused) {
  json doc = siteMapDoc();
  doc["structs"][0]["fields"][0]["size"] = 0;
  EXPECT_EQ(siteMapError(doc), "s.json: /structs/0/fields/0/size: expected at least 1 (0, with align 0, only for a bit-field), got 0");
  doc = siteMapDoc();
  doc["structs"][0]["fields"][1]["offset"] = -4;
  EXPECT_EQ(siteMapError(doc), "s.json: /structs/0/fields/1/offset: expected an integer from 0 to 4294967295, got -4");
  doc = siteMapDoc();
  doc["structs"][0]["fields"][1]["name"] = "y[2]";
  EXPECT_EQ(siteMapError(doc), "s.json: /structs/0/fields/1/name: expected a C++ identifier, or \"\" for an unnamed member, got \"y[2]\"");
  doc = siteMapDoc();
  doc["structs"][0]["name"] = "P\r";  // messages quote it on one line
  EXPECT_EQ(siteMapError(doc), "s.json: /structs/0/name: expected a C++ type name, got \"P\\r\"");
  doc = siteMapDoc();
  doc["sites"][0].erase("access");
  EXPECT_EQ(siteMapError(doc),
            "s.json: /sites/0/access: expected one of \"read\", \"write\", \"readwrite\", got nothing");
  doc = siteMapDoc();
  doc["sites"][0]["location"]["line"] = -1;  // read as an unsigned, it once became 4294967295
  EXPECT_EQ(siteMapError(doc), "s.json: /sites/0/location/line: expected an integer from 0 to 4294967295, got -1");
  doc["sites"][0]["location"]["line"] = 4294967296ull;  // and this one was cut to 0
  EXPECT_EQ(siteMapError(doc),
            "s.json: /sites/0/location/line: expected an integer from 0 to 4294967295, got 4294967296");
  doc = siteMapDoc();
  doc["block_period"] = 1.5;
  EXPECT_EQ(siteMapError(doc), "s.json: /block_period: expected an integer from 1 to 4294967295, got 1.5");
}

// What the instrumenter writes for `unsigned flags : 3;` and for unnamed members.
TEST(SiteMapSchema, BitFieldsAndUnnamedMembersAreAccepted) {
  json doc = siteMapDoc();
  doc["structs"][0]["fields"].push_back({{"name", "flags"}, {"type", "unsigned int"}, {"offset", 8}, {"size", 0},
                                         {"align", 0}, {"extents", json::array()}});
  doc["structs"][0]["fields"].push_back({{"name", ""}, {"type", "int"}, {"offset", 8}, {"size", 0}, {"align", 0}});
  doc["structs"][0]["fields"].push_back({{"name", ""}, {"type", "int"}, {"offset", 8}, {"size", 0}, {"align", 0}});
  EXPECT_EQ(siteMapError(doc), "(accepted)");
  doc["structs"][0]["fields"][2]["align"] = 4;
  EXPECT_EQ(siteMapError(doc), "s.json: /structs/0/fields/2/size: expected at least 1 (0, with align 0, only for a "
                               "bit-field), got 0");
}

TEST(SiteMapSchema, DuplicateFieldsAndStructsAreRefused) {
  json doc = siteMapDoc();
  doc["structs"][0]["fields"][1]["name"] = "x";
  EXPECT_EQ(siteMapError(doc),
            "s.json: /structs/0/fields/1/name: expected a name no other field of P has "
            "(/structs/0/fields/0/name has it), got \"x\"");
  doc = siteMapDoc();
  doc["structs"].push_back(doc["structs"][0]);
  EXPECT_EQ(siteMapError(doc),
            "s.json: /structs/1/name: expected a name no other struct has (/structs/0/name has "
            "it), got \"P\"");
  doc = siteMapDoc();
  doc["structs"][0]["fields"][1]["offset"] = 6;
  EXPECT_EQ(siteMapError(doc),
            "s.json: /structs/0/fields/1/offset: expected at most 4 (the field's 4 bytes inside "
            "P's 8), got 6");
}

TEST(SiteMapSchema, LoopsAndSitesReferToWhatTheMapDeclares) {
  json doc = siteMapDoc();
  doc["loops"][1]["parent"] = 1;
  EXPECT_EQ(siteMapError(doc),
            "s.json: /loops/1/parent: expected null or the id of the loop that encloses loop 1, "
            "got 1 (the loop itself)");
  doc = siteMapDoc();
  doc["loops"][1]["parent"] = 999;
  EXPECT_EQ(siteMapError(doc), "s.json: /loops/1/parent: expected null or a loop id below 2, got 999");
  doc = siteMapDoc();
  doc["loops"][0]["parent"] = 1;
  EXPECT_EQ(siteMapError(doc),
            "s.json: /loops/0/parent: expected a chain of enclosing loops that ends, got a cycle "
            "through loop 0");
  doc = siteMapDoc();
  doc["loops"][1]["id"] = 999;
  EXPECT_EQ(siteMapError(doc), "s.json: /loops/1/id: expected 1 (loop ids are positions), got 999");
  doc = siteMapDoc();
  doc["sites"][0]["loop"] = 999;
  EXPECT_EQ(siteMapError(doc), "s.json: /sites/0/loop: expected null or a loop id below 2, got 999");
  doc = siteMapDoc();
  doc["sites"][0]["id"] = 3;
  EXPECT_EQ(siteMapError(doc), "s.json: /sites/0/id: expected 0 (site ids are positions), got 3");
  doc = siteMapDoc();
  doc["sites"][0]["struct"] = "Q";
  EXPECT_EQ(siteMapError(doc), "s.json: /sites/0/struct: expected a struct the site map declares (P), got \"Q\"");
  doc = siteMapDoc();
  doc["kernels"] = json::array({{{"id", 1}, {"name", "k"}}});
  EXPECT_EQ(siteMapError(doc), "s.json: /kernels/0/id: expected 0 (kernel ids are positions), got 1");
}

TEST(SiteMapSchema, TheSameUnitTwiceIsRefusedNamingBoth) {
  auto a = SiteMap::fromJson(siteMapDoc(), "a.sites.json");
  ASSERT_TRUE(static_cast<bool>(a));
  std::vector<const SiteMap*> maps = {&*a, &*a};
  EXPECT_EQ(llvm::toString(checkDistinctUnits({"a.sites.json", "b.sites.json"}, maps)),
            "b.sites.json: describes the same unit as a.sites.json (a.cu, sha256 aaaaaaaaaaaa); give each site map "
            "once");
  EXPECT_FALSE(static_cast<bool>(checkDistinctUnits({"a.sites.json"}, {&*a})));
}

TEST(ProfileSchema, CountersAreNonNegativeIntegersBelow2To64) {
  json doc = profileDoc();
  const std::string expected = "p.json: /units/0/sites/0/0: expected an integer from 0 to 18446744073709551615, got ";
  doc["units"][0]["sites"][0][0] = -1;
  EXPECT_EQ(profileError(doc), expected + "-1");
  doc["units"][0]["sites"][0][0] = 10.5;
  EXPECT_EQ(profileError(doc), expected + "10.5");
  doc["units"][0]["sites"][0][0] = 1e308;
  EXPECT_EQ(profileError(doc), expected + "1e+308");
  doc["units"][0]["sites"][0][0] = json::parse("18446744073709551616");
  EXPECT_EQ(profileError(doc), expected + "1.8446744073709552e+19");
  doc = profileDoc();
  doc["units"][0]["loops"][1] = -3;
  EXPECT_EQ(profileError(doc), "p.json: /units/0/loops/1: expected an integer from 0 to 18446744073709551615, got -3");
}

TEST(ProfileSchema, ColumnsAndSamplingAgree) {
  json doc = profileDoc();
  doc["units"][0]["kernel_blocks"][0]["classified"] = 40;  // checkpoints weigh their blocks
  EXPECT_EQ(profileError(doc), "(accepted)");
  // A kernel that reaches no hook runs its plain copy always and classifies no block.
  doc["units"][0]["kernel_blocks"][0]["classified"] = 0;
  EXPECT_EQ(profileError(doc), "(accepted)");
  // One with counts classified at least its launches' block 0.
  doc["units"][0]["kernel_sites"] = json::array({{{"site", 0}, {"kernel", "k"}, {"counters", {1, 1, 1, 1, 0, 0}}}});
  EXPECT_EQ(profileError(doc),
            "p.json: /units/0/kernel_blocks/0/classified: expected at least 1 when blocks is 12 and the kernel "
            "has counts, got 0");
  doc = profileDoc();
  doc["units"][0]["kernel_sites"] = json::array({{{"site", 4}, {"kernel", "k"}, {"counters", {1, 1, 1, 1, 0, 0}}}});
  EXPECT_EQ(profileError(doc),
            "p.json: /units/0/kernel_sites/0/site: expected a site id below 1 (the unit's sites), "
            "got 4");
}

TEST(ProfileSchema, LoopCountsAreOnePerLoopOfTheSiteMap) {
  auto map = SiteMap::fromJson(siteMapDoc(), "s.json");
  ASSERT_TRUE(static_cast<bool>(map));
  json doc = profileDoc();
  auto fits = Profile::fromJson(doc, "p.json");
  ASSERT_TRUE(static_cast<bool>(fits));
  EXPECT_TRUE(static_cast<bool>(matchProfile(*fits, "p.json", {&*map})));
  doc["units"][0]["loops"] = {5, 9, 7};
  auto three = Profile::fromJson(doc, "p.json");
  ASSERT_TRUE(static_cast<bool>(three));
  EXPECT_EQ(errorOf(matchProfile(*three, "p.json", {&*map})),
            "p.json: /units/0/loops: expected 2 loop counts (one per loop of the site map of a.cu) or none, got an "
            "array of 3");
}

TEST(PlanSchema, ClustersPartitionTheFields) {
  json doc = planDoc();
  doc["structs"][0]["layout"] = "zigzag";
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/layout: expected one of \"aos\", \"soa\", \"clustered\", \"aligned\", got "
            "\"zigzag\"");
  doc = planDoc();
  doc["structs"][0]["clusters"][1]["fields"][0] = "x";
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/clusters/1/fields/0: expected a field no other cluster holds "
            "(/structs/0/clusters/0/fields/0 holds it), got \"x\"");
  doc = planDoc();
  doc["structs"][0]["clusters"][1]["fields"][0] = "w";
  EXPECT_EQ(planError(doc), "plan.json: /structs/0/clusters/1/fields/0: expected a field of P (x, y, z), got \"w\"");
  doc = planDoc();
  doc["structs"][0]["clusters"].erase(2);
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/clusters: expected clusters that hold every field of P, got none "
            "holding \"z\" (/structs/0/fields/2)");
  doc["structs"][0]["clusters"].erase(0);  // every field left out is named, not only the first
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/clusters: expected clusters that hold every field of P, got none "
            "holding \"x\" (/structs/0/fields/0), \"z\" (/structs/0/fields/2)");
  doc = planDoc();
  doc["structs"][0]["name"] = "P\nQ";  // a name that would split the message over two lines
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/name: expected a C++ type name, got \"P\\nQ\"");
  doc = planDoc();
  doc["structs"][0]["fields"][2] = "x";
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/0/fields/2: expected a field no other entry names "
            "(/structs/0/fields/0 names it), got \"x\"");
  doc = planDoc();
  doc["structs"].push_back(doc["structs"][0]);
  EXPECT_EQ(planError(doc),
            "plan.json: /structs/1/name: expected a struct no other entry plans (/structs/0/name "
            "plans it), got \"P\"");
  doc = planDoc();
  doc["structs"][0]["clusters"] = json::array();
  EXPECT_EQ(planError(doc), "plan.json: /structs/0/clusters: expected clusters for layout \"soa\", got none");
  doc = planDoc();
  doc["structs"][0].erase("score");
  EXPECT_EQ(planError(doc), "plan.json: /structs/0/score: expected a number, got nothing");
}

TEST(TraceHeader, BlockPeriodZeroIsRefused) {
  TraceHeader header = makeTraceHeader(/*blockPeriod=*/0);
  header.records = 0;
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
  TraceHeader read{};
  auto problem = checkTraceFile(bytes.data(), bytes.size(), read);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->offset, 32u);
  EXPECT_EQ(problem->message, "block period 0, expected at least 1");
  header.blockPeriod = 8;
  bytes.assign(reinterpret_cast<const char*>(&header), sizeof header);
  EXPECT_FALSE(checkTraceFile(bytes.data(), bytes.size(), read).has_value());
}

}  // namespace
}  // namespace relayout
