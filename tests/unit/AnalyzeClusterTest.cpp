// Paper mode end to end with the field access tree, predicted traffic and the reports; bad
// profiles fail with errors naming the file, never a crash.
#include "relayout/analysis/Analyze.h"
#include "relayout/analysis/Traffic.h"
#include "relayout/core/Files.h"

#include <gtest/gtest.h>

#include <fstream>

namespace relayout {
namespace {

// Particle {x, y, z, vx, vy, vz, mass, id} (32 bytes); kernel `gather` reads x, y, z, mass of
// random particles in a neighbour loop, kernel `move` updates x, y, z from vx, vy, vz once per
// particle. All accesses are gathers, so the rule keeps AoS and the tree splits it.
SiteMap gatherMap() {
  SiteMap map;
  map.sourcePath = "nb.cu";
  map.sourceSha256 = "abc";
  StructInfo p{"Particle", {"nb.cu", 3, 8}, 32, 4, {}};
  for (const char* f : {"x", "y", "z", "vx", "vy", "vz", "mass", "id"})
    p.fields.push_back({f, "float", 4 * unsigned(p.fields.size()), 4, 4});
  map.structs.push_back(p);
  map.loops.push_back({0, "for", "gather", {"nb.cu", 20, 3}, std::nullopt});
  auto add = [&](const std::string& field, const std::string& kernel, std::optional<unsigned> loop) {
    SiteInfo s;
    s.id = unsigned(map.sites.size());
    s.location = {"nb.cu", 21 + s.id, 7};
    s.structName = "Particle";
    s.field = field;
    s.offset = p.field(field)->offset;
    s.size = 4;
    s.function = kernel;
    s.kernels = {kernel};
    s.loop = loop;
    map.sites.push_back(s);
  };
  for (const char* f : {"x", "y", "z", "mass"}) add(f, "gather", 0u);
  for (const char* f : {"x", "y", "z", "vx", "vy", "vz"}) add(f, "move", std::nullopt);
  return map;
}

Profile gatherProfile(const SiteMap& map) {
  Profile profile;
  profile.device = "NVIDIA H200";
  std::vector<SiteCounters> rows;
  for (const SiteInfo& s : map.sites) {
    uint64_t warps = s.loop ? 64000 : 1000;  // the neighbour loop runs 64 times per particle
    rows.push_back({warps, 32 * warps, 32 * warps, 32 * warps, 0, 0});
  }
  UnitProfile unit;
  unit.source = "nb.cu";
  unit.sha256 = "abc";
  unit.sites = rows;
  profile.units.push_back(unit);
  return profile;
}

TEST(AnalyzeClusters, AoSStructIsSplitByTheFieldAccessTree) {
  SiteMap map = gatherMap();
  auto analysis = analyzePaper({{"nb.sites.json", map}}, gatherProfile(map), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructPlan& p = analysis->plan.structs[0];
  EXPECT_EQ(p.layout, Layout::Clustered);
  ASSERT_EQ(p.clusters.size(), 2u);
  // x, y, z join the neighbour loop (the larger Count); id, never accessed, fills mass's padding.
  EXPECT_EQ(p.clusters[0].name, "xyz_mass");
  EXPECT_EQ(p.clusters[0].fields, (std::vector<std::string>{"x", "y", "z", "mass"}));
  EXPECT_EQ(p.clusters[0].paddingBytes, 0u);
  EXPECT_EQ(p.clusters[1].fields, (std::vector<std::string>{"vx", "vy", "vz", "id"}));
  EXPECT_NE(p.reason.find("split into 2 aligned clusters"), std::string::npos) << p.reason;
  EXPECT_EQ(analysis->structs[0].clustering->tree.kernels[0].loops[0].label, "nb.cu:20 for");

  // The plan carries the padding and round-trips.
  auto back = Plan::fromJson(analysis->plan.toJson(), "plan.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->structs[0].layout, Layout::Clustered);
  EXPECT_EQ(back->structs[0].clusters[1].fields, p.clusters[1].fields);
}

TEST(AnalyzeClusters, MeasuredLoopCountsFromTheProfileAreUsed) {
  SiteMap map = gatherMap();
  Profile profile = gatherProfile(map);
  profile.units[0].loops = {5000};  // thread-level body executions of loop 0
  profile.units[0].blockPeriod = 4;
  auto analysis = analyzePaper({{"nb.sites.json", map}}, profile, "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const LoopNode& loop = analysis->structs[0].clustering->tree.kernels[0].loops[0];
  EXPECT_TRUE(loop.measured);
  EXPECT_DOUBLE_EQ(loop.count, 5000.0 * 4);  // scaled by the block sampling period
}

TEST(AnalyzeClusters, NoClustersKeepsPlainAoS) {
  SiteMap map = gatherMap();
  AnalyzeOptions options;
  options.clusters = false;
  auto analysis = analyzePaper({{"nb.sites.json", map}}, gatherProfile(map), "p.json", options);
  ASSERT_TRUE(static_cast<bool>(analysis));
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::AoS);
  EXPECT_TRUE(analysis->plan.structs[0].clusters.empty());
  EXPECT_FALSE(analysis->structs[0].clustering.has_value());
}

TEST(AnalyzeClusters, ASiteOfAnUndeclaredFieldIsAnErrorNamingTheSiteMap) {
  SiteMap map = gatherMap();
  map.sites[2].field = "w";
  auto analysis = analyzePaper({{"nb.sites.json", map}}, gatherProfile(map), "p.json");
  ASSERT_FALSE(static_cast<bool>(analysis));
  EXPECT_EQ(llvm::toString(analysis.takeError()),
            "nb.sites.json: site 2 names Particle.w, which the site map does not declare");
}

TEST(Traffic, SoAOfACoalescedStreamNeedsAnEighthOfTheSectors) {
  // H200, toy_stream: 4-byte fields of 32-byte structs, 32 lanes on 32 sectors per warp.
  SiteCounters c{5767168, 184549376, 184549376, 46137344, 680525824, 0};
  SiteVerdict v = classifyPaper(c, 1);
  EXPECT_DOUBLE_EQ(measuredSectors(c, 1), 184549376.0);
  EXPECT_DOUBLE_EQ(predictSectors(c, v, 1, 4, 4), 5767168.0 * 4);
  EXPECT_DOUBLE_EQ(predictSectors(c, v, 1, 4, 16), 5767168.0 * 16);  // a 16-byte cluster
  EXPECT_DOUBLE_EQ(predictSectors(c, v, 1, 4, 32), 184549376.0);     // AoS: as measured
}

TEST(Traffic, GathersTouchASectorPerLaneAndBroadcastsKeepTheirs) {
  SiteCounters gather{10, 320, 320, 320, 0, 0};
  EXPECT_DOUBLE_EQ(predictSectors(gather, classifyPaper(gather, 2), 2, 4, 4), 640.0);
  SiteCounters broadcast{10, 320, 10, 10, 320 * 31, 10};
  EXPECT_DOUBLE_EQ(predictSectors(broadcast, classifyPaper(broadcast, 1), 1, 4, 4), 10.0);
  EXPECT_DOUBLE_EQ(predictSectors({}, classifyPaper({}, 1), 1, 4, 4), 0.0);
  SiteCounters partial{10, 80, 80, 80, 80 * 7, 0};  // 8 active lanes, coalesced
  EXPECT_DOUBLE_EQ(predictSectors(partial, classifyPaper(partial, 1), 1, 4, 4), 10.0);
}

TEST(Reports, HtmlIsSelfContainedWithTreeSitesAndChart) {
  SiteMap map = gatherMap();
  auto analysis = analyzePaper({{"nb.sites.json", map}}, gatherProfile(map), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis));
  std::string html = renderHtmlReport(*analysis);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("clustered (estimate)"), std::string::npos);
  EXPECT_NE(html.find("nb.cu:20 for &mdash; Count 2.048e+06"), std::string::npos) << html;
  EXPECT_NE(html.find("<code>nb.cu:21</code>"), std::string::npos);
  EXPECT_NE(html.find("column 7</td>"), std::string::npos);
  EXPECT_NE(html.find("source text not shown: nb.cu is not readable here"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"tree\">"), std::string::npos);
  EXPECT_NE(html.find("class=\"chart heatmap\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);

  nlohmann::json json = renderJsonReport(*analysis);
  EXPECT_EQ(json["format"], "relayout-report");
  EXPECT_EQ(json["structs"][0]["layout"], "clustered");
  EXPECT_EQ(json["structs"][0]["clustering"]["clusters"][0]["bytes"], 16);
  EXPECT_EQ(json["structs"][0]["sites"][0]["sectors"]["aos"], 64000.0 * 32);

  std::string text = renderTerminalReport(*analysis);
  EXPECT_NE(text.find("struct Particle: clustered"), std::string::npos) << text;
  EXPECT_NE(text.find("cluster xyz_mass {x, y, z, mass} 16 B (0 padding)"), std::string::npos) << text;
  EXPECT_NE(renderMarkdownReport(*analysis).find("| xyz_mass | x, y, z, mass | 16 | 0 |"), std::string::npos);
}

// The markdown report shows an element's bytes before and after, with the padding a struct has
// between and after its fields.
TEST(Reports, ByteLayoutShowsPaddingBeforeAndTheArraysAfter) {
  Analysis analysis;
  StructDecision d;
  d.name = "sim::Cell";
  d.info.name = "sim::Cell";
  d.info.size = 16;
  d.info.fields = {{"kind", "char", 0, 1, 1, {}}, {"mass", "float", 4, 4, 4, {}}, {"id", "int", 8, 4, 4, {}}};
  d.layout = Layout::SoA;
  analysis.structs.push_back(d);
  const std::string md = renderMarkdownReport(analysis);
  EXPECT_NE(md.find("before (AoS, 16 B): `kind` 0–0, *3 B padding*, `mass` 4–7, `id` 8–11, *4 B padding*."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("After (SoA, one array per field, no padding): `kind` 1 B, `mass` 4 B, `id` 4 B; 9 B per element "
                    "in all, 16 B before (-44%)."),
            std::string::npos)
      << md;
}

// A profile cut anywhere, or with a counter of the wrong type, is an error that names the file
// (and, for JSON syntax, the byte), never a crash.
TEST(BadProfiles, TruncatedAnywhereIsAnErrorNamingTheFileAndByte) {
  auto text = readFile(RELAYOUT_SOURCE_DIR "/samples/toy_stream/profiles/stream.h200.profile.json");
  ASSERT_TRUE(static_cast<bool>(text)) << llvm::toString(text.takeError());
  std::string path = ::testing::TempDir() + "/truncated.profile.json";
  for (size_t cut = 0; cut + 8 < text->size(); cut += 37) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text->substr(0, cut);
    auto profile = Profile::load(path);
    ASSERT_FALSE(static_cast<bool>(profile)) << "cut at " << cut;
    std::string message = llvm::toString(profile.takeError());
    EXPECT_EQ(message.rfind(path + ": malformed JSON at byte ", 0), 0u) << message;
  }
  std::string wrongType = *text;
  wrongType.replace(wrongType.find("[5767168,"), 9, "[\"many\",");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << wrongType;
  auto profile = Profile::load(path);
  ASSERT_FALSE(static_cast<bool>(profile));
  const std::string message = llvm::toString(profile.takeError());
  EXPECT_EQ(message.rfind(path + ": /units/0/", 0), 0u) << message;
  EXPECT_NE(message.find(": expected an integer from 0 to 18446744073709551615, got \"many\""), std::string::npos)
      << message;
}

}  // namespace
}  // namespace relayout
