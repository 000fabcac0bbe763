// Hardware cross-check: sites joined with the profile's hw lines by (file, line), the agreement
// criterion, and the report sections.
#include "relayout/analysis/Analyze.h"
#include "relayout/analysis/HwCompare.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

SiteInfo site(unsigned id, unsigned line, const std::string& structName, const std::string& field, AccessKind access,
              const std::string& file = "app/stream.cu") {
  SiteInfo s;
  s.id = id;
  s.location = {file, line, 5};
  s.structName = structName;
  s.field = field;
  s.offset = 0;
  s.size = 4;
  s.access = access;
  s.function = "kick";
  s.kernels = {"kick"};
  return s;
}

HwLine hwLine(const std::string& file, unsigned line, const std::string& function, uint64_t inst, uint64_t sectors,
              uint64_t ideal) {
  return {file, line, function, inst, inst, 0, sectors, ideal};
}

struct Fixture {
  std::vector<SiteMapFile> maps;
  Profile profile;
  HwProfile hw;
};

// Block period 4. Line 10: P.x read-write and P.vx read, AoS (32 sectors per warp access).
// Line 20: Q.s, relayout counts 4 sectors per access, the hardware 8. Line 30: never executed.
// Line 40: executed, but the hardware has nothing there. Line 50 is in a header.
Fixture fixture() {
  Fixture f;
  SiteMap map;
  map.sourcePath = "app/stream.cu";
  map.sourceSha256 = std::string(64, 'b');
  map.blockPeriod = 4;
  map.sites = {site(0, 10, "P", "x", AccessKind::ReadWrite), site(1, 10, "P", "vx", AccessKind::Read),
               site(2, 20, "Q", "s", AccessKind::Read), site(3, 30, "Q", "t", AccessKind::Write),
               site(4, 40, "Q", "u", AccessKind::Read), site(5, 50, "Q", "v", AccessKind::Read, "app/util.cuh")};
  f.maps.push_back({"stream.sites.json", map});

  UnitProfile unit{"app/stream.cu", map.sourceSha256, 4, {}, {}, {}};
  unit.sites = {{100, 3200, 3200, 3200, 0, 0}, {100, 3200, 3200, 3200, 0, 0}, {100, 3200, 400, 100, 0, 0},
                {0, 0, 0, 0, 0, 0},           {50, 1600, 200, 50, 0, 0},    {10, 320, 40, 10, 0, 0}};
  f.profile.units.push_back(unit);

  f.hw.device = "NVIDIA H200";
  f.hw.chip = "GH100";
  f.hw.lines = {
      // line 10 in two kernels: 3 instructions per warp (load x, store x, load vx), 32 sectors each
      hwLine("/home/u/app/stream.cu", 10, "kick(P*, int)", 1000, 32000, 4000),
      hwLine("/home/u/app/stream.cu", 10, "kick2(P*, int)", 200, 6400, 800),
      hwLine("/home/u/app/stream.cu", 20, "kick(P*, int)", 400, 3200, 1600),
      hwLine("/home/u/app/stream.cu", 30, "kick(P*, int)", 400, 1600, 1600),
      // the same line number in other files: not joined
      hwLine("/home/u/other/stream.cu", 40, "kick(P*, int)", 400, 1600, 1600),
      hwLine("/home/u/app/util.cu", 50, "kick(P*, int)", 400, 1600, 1600),
      hwLine("/home/u/app/util.cuh", 50, "kick(P*, int)", 40, 160, 160),
  };
  return f;
}

const HwCompareRow& rowAt(const HwComparison& c, unsigned line) {
  for (const HwCompareRow& r : c.rows)
    if (r.line == line) return r;
  static HwCompareRow none;
  ADD_FAILURE() << "no row for line " << line;
  return none;
}

TEST(HwCompare, SameSourceFile) {
  EXPECT_TRUE(sameSourceFile("app/stream.cu", "/home/u/app/stream.cu"));
  EXPECT_TRUE(sameSourceFile("/home/u/app/stream.cu", "./app/stream.cu"));
  EXPECT_TRUE(sameSourceFile("stream.cu", "/home/u/app//stream.cu"));
  EXPECT_TRUE(sameSourceFile("/a/b.cu", "/a/./b.cu"));
  EXPECT_FALSE(sameSourceFile("app/stream.cu", "/home/u/myapp/stream.cu"));
  EXPECT_FALSE(sameSourceFile("stream.cu", "/home/u/app/upstream.cu"));
  EXPECT_FALSE(sameSourceFile("a.cu", "a.cuh"));
}

TEST(HwCompare, JoinsSitesWithHardwareLinesByFileAndLine) {
  Fixture f = fixture();
  HwComparison c = compareWithHardware(f.maps, f.profile, f.hw);
  EXPECT_EQ(c.device, "NVIDIA H200");
  EXPECT_EQ(c.chip, "GH100");
  ASSERT_EQ(c.rows.size(), 5u);

  const HwCompareRow& aos = rowAt(c, 10);
  EXPECT_EQ(aos.sites, (std::vector<std::string>{"P.x readwrite", "P.vx read"}));
  EXPECT_DOUBLE_EQ(aos.toolSectorsPerExec, 32.0);
  EXPECT_DOUBLE_EQ(aos.toolWarpExecs, 800.0);          // 200 sampled warp executions x period 4
  EXPECT_DOUBLE_EQ(aos.expectedInstructions, 1200.0);  // x counted twice (load and store)
  EXPECT_EQ(aos.hwInstructions, 1200u);                // both kernels
  EXPECT_EQ(aos.functions, (std::vector<std::string>{"kick(P*, int)", "kick2(P*, int)"}));
  EXPECT_DOUBLE_EQ(aos.hwSectorsPerInst, 32.0);
  EXPECT_DOUBLE_EQ(aos.hwIdealPerInst, 4.0);
  EXPECT_EQ(aos.agreement, HwAgreement::Agree);

  const HwCompareRow& differ = rowAt(c, 20);
  EXPECT_DOUBLE_EQ(differ.toolSectorsPerExec, 4.0);
  EXPECT_DOUBLE_EQ(differ.hwSectorsPerInst, 8.0);
  EXPECT_EQ(differ.agreement, HwAgreement::Differ);

  EXPECT_EQ(rowAt(c, 30).agreement, HwAgreement::NotExecuted);
  EXPECT_EQ(rowAt(c, 40).agreement, HwAgreement::NoHardwareData);
  EXPECT_EQ(rowAt(c, 40).hwInstructions, 0u);

  const HwCompareRow& header = rowAt(c, 50);
  EXPECT_EQ(header.file, "app/util.cuh");
  EXPECT_EQ(header.hwInstructions, 40u);
  EXPECT_EQ(header.agreement, HwAgreement::Agree);
}

TEST(HwCompare, AgreementIsWithinAQuarter) {
  Fixture f = fixture();
  // relayout 4 sectors per access on line 20; the hardware 5 (within 25% of 5) and 5.5 (not).
  f.hw.lines[2] = hwLine("/home/u/app/stream.cu", 20, "kick(P*, int)", 400, 2000, 1600);
  EXPECT_EQ(rowAt(compareWithHardware(f.maps, f.profile, f.hw), 20).agreement, HwAgreement::Agree);
  f.hw.lines[2] = hwLine("/home/u/app/stream.cu", 20, "kick(P*, int)", 400, 2200, 1600);
  EXPECT_EQ(rowAt(compareWithHardware(f.maps, f.profile, f.hw), 20).agreement, HwAgreement::Differ);
}

TEST(HwCompare, UnitsWithoutDataAreSkipped) {
  Fixture f = fixture();
  f.profile.units[0].sha256 = std::string(64, 'c');
  EXPECT_TRUE(compareWithHardware(f.maps, f.profile, f.hw).rows.empty());
}

TEST(HwCompare, ReportSections) {
  Fixture f = fixture();
  Analysis analysis;
  analysis.profileDevice = "NVIDIA H200";
  const std::string plain = renderMarkdownReport(analysis);
  EXPECT_EQ(plain.find("Hardware cross-check"), std::string::npos);
  analysis.hw = compareWithHardware(f.maps, f.profile, f.hw);

  const std::string md = renderMarkdownReport(analysis);
  EXPECT_NE(md.find("## Hardware cross-check"), std::string::npos);
  EXPECT_NE(md.find("| stream.cu:10 | P.x readwrite, P.vx read | 32.00 | 800 | 32.00 | 4.00 | 1200 | agree |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("within 25%"), std::string::npos);

  const std::string term = renderTerminalReport(analysis);
  EXPECT_NE(term.find("Hardware cross-check"), std::string::npos);
  EXPECT_NE(term.find("differ"), std::string::npos);

  const std::string html = renderHtmlReport(analysis);
  EXPECT_NE(html.find("<h2 id=\"hw\">Hardware cross-check</h2>"), std::string::npos);
  EXPECT_NE(html.find("</table>\n</body></html>"), std::string::npos);

  const nlohmann::json json = renderJsonReport(analysis);
  ASSERT_TRUE(json.contains("hw"));
  EXPECT_EQ(json["hw"]["rows"].size(), 5u);
  EXPECT_EQ(json["hw"]["tolerance"], kHwTolerance);
  EXPECT_EQ(json["hw"]["rows"][0]["agreement"], "agree");
}

}  // namespace
}  // namespace relayout
