// Paper-mode analysis end to end on hand-made site maps and profiles.
#include "relayout/analysis/Analyze.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

SiteMap particleMap(const std::string& sha) {
  SiteMap map;
  map.sourcePath = "toy.cu";
  map.sourceSha256 = sha;
  StructInfo p{"Particle", {"toy.cu", 3, 8}, 16, 4, {}};
  for (unsigned i = 0; i < 4; ++i) p.fields.push_back({std::string(1, "xyzw"[i]), "float", 4 * i, 4, 4});
  map.structs.push_back(p);
  for (unsigned i = 0; i < 3; ++i) {
    SiteInfo s;
    s.id = i;
    s.location = {"toy.cu", 10 + i, 5};
    s.structName = "Particle";
    s.field = std::string(1, "xyz"[i]);
    s.offset = 4 * i;
    s.size = 4;
    s.function = s.kernels.emplace_back("update");
    map.sites.push_back(s);
  }
  return map;
}

Profile profileWith(const std::string& sha, std::vector<SiteCounters> sites) {
  Profile profile;
  profile.device = "NVIDIA H200";
  profile.units.push_back({"toy.cu", sha, 1, std::move(sites)});
  return profile;
}

TEST(AnalyzePaper, CoalescedStreamingPicksSoAWithEveryFieldItsOwnCluster) {
  SiteCounters coalesced{100, 3200, 400, 100, 3200 * 15, 0};
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}},
                               profileWith("abc", {coalesced, coalesced, coalesced}), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  ASSERT_EQ(analysis->plan.structs.size(), 1u);
  const StructPlan& p = analysis->plan.structs[0];
  EXPECT_EQ(p.layout, Layout::SoA);
  EXPECT_LT(p.score, 0);
  ASSERT_EQ(p.clusters.size(), 4u);  // all fields, the unaccessed w too
  EXPECT_EQ(p.clusters[3].fields, std::vector<std::string>{"w"});
  EXPECT_EQ(analysis->plan.sources[0].sha256, "abc");
}

TEST(AnalyzePaper, OneUncoalescedSiteOutweighsScaledCoalescedOnes) {
  SiteCounters coalesced{100, 3200, 400, 100, 3200 * 15, 0};
  SiteCounters gathered{100, 3200, 3200, 3200, 0, 0};
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}},
                               profileWith("abc", {coalesced, coalesced, gathered}), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis));
  // 3200 - 2 * (15/32) * 3200 = +200: the paper's rule keeps AoS.
  EXPECT_DOUBLE_EQ(analysis->structs[0].score, 200.0);
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::AoS);
  EXPECT_TRUE(analysis->plan.structs[0].clusters.empty());
  EXPECT_EQ(analysis->structs[0].sites.front().site.field, "z");  // heaviest first
}

TEST(AnalyzePaper, UnexecutedStructStaysAoS) {
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}}, profileWith("abc", {{}, {}, {}}), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis));
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::AoS);
  EXPECT_NE(analysis->plan.structs[0].reason.find("no executed accesses"), std::string::npos);
}

TEST(AnalyzePaper, RefusesAProfileOfOtherSources) {
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}}, profileWith("def", {{}, {}, {}}), "p.json");
  ASSERT_FALSE(static_cast<bool>(analysis));
  std::string message = llvm::toString(analysis.takeError());
  EXPECT_NE(message.find("p.json: has no data for toy.cu"), std::string::npos) << message;
}

TEST(AnalyzePaper, RefusesASiteCountMismatch) {
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}}, profileWith("abc", {{}, {}}), "p.json");
  ASSERT_FALSE(static_cast<bool>(analysis));
  EXPECT_NE(llvm::toString(analysis.takeError()).find("has 2 sites for toy.cu but the site map toy.sites.json has 3"),
            std::string::npos);
}

TEST(AnalyzePaper, ReportNamesTheDecidingSite) {
  SiteCounters gathered{100, 3200, 3200, 3200, 0, 0};
  auto analysis = analyzePaper({{"toy.sites.json", particleMap("abc")}},
                               profileWith("abc", {{}, gathered, {}}), "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis));
  std::string report = renderTerminalReport(*analysis);
  EXPECT_NE(report.find("struct Particle: AoS (unchanged)"), std::string::npos) << report;
  EXPECT_NE(report.find("toy.cu:11:5: y"), std::string::npos) << report;
  EXPECT_NE(renderMarkdownReport(*analysis).find("| toy.cu:11:5 | y | read | 32.00 (4) | +700% (uncoalesced) | isolated (n<1) |"), std::string::npos);
}

}  // namespace
}  // namespace relayout
