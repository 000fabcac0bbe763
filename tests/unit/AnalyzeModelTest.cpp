// Model mode end to end (trace written here, replayed, scaled to the profile's counters, decided),
// forced layouts, and the per-kernel attribution of helper sites in the field access tree.
#include "relayout/analysis/Analyze.h"

#include "TempDirs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

#include <unistd.h>

namespace relayout {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;

// Particle {x, y, z, w, vx, vy, vz, m} (32 bytes); site i < `sites` reads field i in `function`.
SiteMap particleMap(const std::string& function = "k", std::vector<std::string> kernels = {"k"}, unsigned sites = 2) {
  SiteMap map;
  map.sourcePath = "m.cu";
  map.sourceSha256 = "abc";
  StructInfo p{"Particle", {"m.cu", 1, 8}, 32, 4, {}};
  for (const char* f : {"x", "y", "z", "w", "vx", "vy", "vz", "m"})
    p.fields.push_back({f, "float", 4 * unsigned(p.fields.size()), 4, 4});
  map.structs.push_back(p);
  for (unsigned i = 0; i < sites; ++i) {
    SiteInfo s;
    s.id = i;
    s.location = {"m.cu", 10 + i, 3};
    s.structName = "Particle";
    s.field = p.fields[i].name;
    s.offset = 4 * i;
    s.size = 4;
    s.function = function;
    s.kernels = kernels;
    map.sites.push_back(s);
  }
  map.kernels = kernels;
  return map;
}

void addGroup(std::vector<TraceRecord>& out, unsigned site, const std::vector<uint64_t>& elements, uint32_t warp,
              uint32_t launch = 0) {
  for (size_t k = 0; k < elements.size(); ++k)
    out.push_back({kBase + elements[k] * 32 + 4 * site, elements[k], launch, warp, site, 0, uint8_t(site), uint8_t(k),
                   uint8_t(elements.size())});
}

std::vector<uint64_t> stride1(uint64_t first) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 32; ++i) v.push_back(first + i);
  return v;
}

std::vector<uint64_t> gather(uint64_t seed) {
  std::vector<uint64_t> v;
  for (uint64_t k = 0; k < 32; ++k) v.push_back(((seed * 32 + k) * 7919 + 13) % 65536 * 3);
  return v;
}

struct Fixture {
  std::string dir;
  std::string profilePath;
  Profile profile;
};

// A profile whose two sites ran `lanesPerSite` thread-level executions, with the records as its trace.
Fixture withTrace(const std::vector<TraceRecord>& records, uint64_t lanesPerSite,
                  std::vector<std::string> launches = {"k(Particle*)"}, unsigned sites = 2) {
  Fixture f;
  f.dir = test::makeTempDir("relayout-model");
  f.profilePath = f.dir + "/p.json";
  EXPECT_FALSE(static_cast<bool>(writeTrace(f.dir + "/p.trace", makeTraceHeader(), records)));
  f.profile.device = "test";
  UnitProfile unit;
  unit.source = "m.cu";
  unit.sha256 = "abc";
  // Counters of a gather (the paper rule keeps AoS): model mode must not care.
  unit.sites.assign(sites, {lanesPerSite / 32, lanesPerSite, lanesPerSite, lanesPerSite, 0, 0});
  f.profile.units.push_back(unit);
  TraceInfo trace{"p.trace", records.size(), 0, 1 << 20, 1, 2, {}};
  for (const std::string& k : launches) trace.launches.push_back({k, 1, 0});
  f.profile.trace = trace;
  return f;
}

llvm::Expected<Analysis> run(const Fixture& f, const SiteMap& map, AnalyzeOptions options = {}) {
  if (options.mode == AnalyzeMode::Paper && !options.forced) options.mode = AnalyzeMode::Model;
  return analyze({{"m.sites.json", map}}, f.profile, f.profilePath, options);
}

TEST(AnalyzeModel, StreamingTwoFieldsPicksTheirPairWithScaledPredictions) {
  // 100 warps read x then y of 32 consecutive elements; the counters say twice as many
  // executions as the trace holds, so every replayed number doubles. Per warp: AoS 32 sectors
  // (y reuses x's), SoA and AoSoA 4 + 4, the tree's cluster {x, y} (8 bytes, aligned to 8) 8 + 0:
  // as many sectors as SoA, in half the requests, so it stays together and is the pick.
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 100; ++w) addGroup(records, 0, stride1(32 * w), w), addGroup(records, 1, stride1(32 * w), w);
  SiteMap map = particleMap();
  auto analysis = run(withTrace(records, 6400), map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  EXPECT_EQ(analysis->plan.mode, "model");
  EXPECT_DOUBLE_EQ(d.sectors.aos, 6400);
  EXPECT_DOUBLE_EQ(d.sectors.soa, 1600);
  EXPECT_DOUBLE_EQ(d.sectors.aosoa, 1600);
  EXPECT_DOUBLE_EQ(d.sectors.clustered, 1600);
  ASSERT_TRUE(d.clustering.has_value());
  EXPECT_TRUE(d.clustering->apart.empty());
  ASSERT_EQ(d.clustering->clusters.size(), 2u);
  EXPECT_EQ(d.clustering->clusters[0].fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(d.clustering->clusters[0].bytes, 8u);
  EXPECT_EQ(d.clustering->clusters[1].name, "cold");  // the six fields never accessed
  EXPECT_DOUBLE_EQ(d.requested.aos, 12800);
  EXPECT_DOUBLE_EQ(d.replayedShare, 1.0);
  // Cost: AoS 6400 + 3200 requested lines (8 per warp and site), SoA 1600 + 400 lines, each with
  // the same requests; the pair 1600 + 800 lines (2 per warp and site: 32 lanes x 8 bytes), but x
  // and y, read as often in one function, are one 8-byte access: half the lines and requests.
  const double requests = kRequestWeight * 400, w = kL1WavefrontWeight;
  const double aos = 6400 + w * 3200 + requests, soa = 1600 + w * 400 + requests;
  const double pair = 1600 + 0.5 * (w * 800 + requests);
  EXPECT_DOUBLE_EQ(d.cost.aos, aos);
  EXPECT_DOUBLE_EQ(d.cost.soa, soa);
  EXPECT_DOUBLE_EQ(d.cost.clustered, pair);
  EXPECT_EQ(d.layout, Layout::Clustered);
  EXPECT_DOUBLE_EQ(d.score, (aos - pair) / aos);
  const StructPlan& p = analysis->plan.structs[0];
  EXPECT_EQ(p.layout, Layout::Clustered);
  EXPECT_EQ(p.clusters.size(), 2u);
  EXPECT_EQ(p.details["predicted_sectors"]["aosoa"], 1600.0);
  EXPECT_EQ(p.details["model"]["kernels"][0]["kernel"], "k");
  EXPECT_EQ(p.details["model"]["kernels"][0]["predicted_sectors"]["soa"], 1600.0);
  EXPECT_NE(p.reason.find(fmt::format("clustered costs {:.0f}% less than AoS", 100 * (aos - pair) / aos)),
            std::string::npos)
      << p.reason;
  std::string report = renderTerminalReport(*analysis);
  EXPECT_NE(report.find("traffic model"), std::string::npos) << report;
  EXPECT_NE(report.find("AoSoA 1600 (not emitted)"), std::string::npos) << report;
  EXPECT_NE(renderHtmlReport(*analysis).find("AoSoA (not emitted)"), std::string::npos);
  EXPECT_EQ(renderJsonReport(*analysis)["rule"], "model");
  EXPECT_NE(renderMarkdownReport(*analysis).find("| AoSoA (32) | 1600 |"), std::string::npos);
}

TEST(AnalyzeModel, KeepTreeClustersDecidesAsBeforeTheCheck) {
  // The streaming test's profile with checkClusters off (--keep-tree-clusters): the tree's {x, y}
  // is used as it is, at its own 8 + 0 sectors per warp, and nothing is taken apart (the check
  // keeps it too: projects/recorded.test has a cluster the check takes apart).
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 100; ++w) addGroup(records, 0, stride1(32 * w), w), addGroup(records, 1, stride1(32 * w), w);
  AnalyzeOptions options;
  options.mode = AnalyzeMode::Model;
  options.checkClusters = false;
  auto analysis = run(withTrace(records, 6400), particleMap(), options);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  EXPECT_DOUBLE_EQ(d.sectors.clustered, 1600);
  EXPECT_TRUE(d.clustering->apart.empty());
  EXPECT_EQ(d.clustering->clusters[0].fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(d.layout, Layout::Clustered);
}

TEST(AnalyzeModel, RandomGatherOfTwoFieldsKeepsThemTogether) {
  // x then y of random far-apart elements: AoS 32 sectors per warp (y from x's sectors), SoA 64.
  // The tree's cluster {x, y} is 8 bytes aligned to 8: x and y are one 8-byte access there (AoS's
  // 4-byte alignment allows none), half the requests: it is chosen, never SoA.
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 50; ++w) addGroup(records, 0, gather(w), w), addGroup(records, 1, gather(w), w);
  auto analysis = run(withTrace(records, 1600), particleMap());
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  EXPECT_DOUBLE_EQ(d.sectors.aos, 1600);
  EXPECT_DOUBLE_EQ(d.sectors.soa, 3200);
  EXPECT_DOUBLE_EQ(d.sectors.clustered, 1600);
  // The cluster moves half of what x and y apart move: it stays a candidate (the fields never
  // accessed go cold: it has no padding to hold them).
  ASSERT_TRUE(d.clustering.has_value());
  EXPECT_TRUE(d.clustering->apart.empty());
  EXPECT_EQ(d.clustering->clusters[0].fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_DOUBLE_EQ(d.sites[0].requests.aos, 1);
  EXPECT_DOUBLE_EQ(d.sites[0].requests.clustered, 0.5);
  EXPECT_DOUBLE_EQ(d.sites[0].requests.soa, 1);
  EXPECT_EQ(d.layout, Layout::Clustered);
  EXPECT_LT(d.cost.clustered, d.cost.aos);
  EXPECT_LT(d.cost.aos, d.cost.soa);
}

TEST(AnalyzeModel, AClusterIsCutBetweenGatheredAndOwnIndexFields) {
  // One function reads x and y of a gathered element and z of the thread's own, equally often:
  // the tree groups x, y and z (w, never accessed, in its padding), so that every gather fetches
  // z's bytes and every own-index read of z strides over 16-byte records. The replay sees z read
  // at base + lane: the cluster is cut into {x, y} and an array of z, which costs less and is kept.
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 50; ++w) {
    addGroup(records, 0, gather(w), w);
    addGroup(records, 1, gather(w), w);
    addGroup(records, 2, stride1(32 * w), w);
  }
  auto analysis = run(withTrace(records, 1600, {"k(Particle*)"}, 3), particleMap("k", {"k"}, 3));
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  EXPECT_DOUBLE_EQ(d.sites[2].model.ownIndex, d.sites[2].model.warps);
  EXPECT_DOUBLE_EQ(d.sites[0].model.ownIndex, 0);
  ASSERT_TRUE(d.clustering.has_value());
  ASSERT_GE(d.clustering->clusters.size(), 2u);
  EXPECT_EQ(d.clustering->clusters[0].fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(d.clustering->clusters[1].fields, (std::vector<std::string>{"z"}));
  EXPECT_EQ(d.layout, Layout::Clustered);
  // The tree's {x, y, z, w}, priced the same way without the cut, costs more.
  AnalyzeOptions keep;
  keep.mode = AnalyzeMode::Model;
  keep.checkClusters = false;
  auto tree = run(withTrace(records, 1600, {"k(Particle*)"}, 3), particleMap("k", {"k"}, 3), keep);
  ASSERT_TRUE(static_cast<bool>(tree)) << llvm::toString(tree.takeError());
  EXPECT_EQ(tree->structs[0].clustering->clusters[0].fields, (std::vector<std::string>{"x", "y", "z", "w"}));
  EXPECT_LT(d.cost.clustered, tree->structs[0].cost.clustered);
}

// Complex {double re, im}: 16 bytes aligned to 8. Sites 0 and 1 read re and im of one element,
// sites 2 and 3 write them back; only the reads are in the trace.
SiteMap complexMap() {
  SiteMap map;
  map.sourcePath = "m.cu";
  map.sourceSha256 = "abc";
  StructInfo c{"Complex", {"m.cu", 1, 8}, 16, 8, {}};
  c.fields = {{"re", "double", 0, 8, 8}, {"im", "double", 8, 8, 8}};
  map.structs.push_back(c);
  for (unsigned i = 0; i < 4; ++i) {
    SiteInfo s;
    s.id = i;
    s.location = {"m.cu", 10 + i / 2, 3 + 10 * (i % 2)};
    s.structName = "Complex";
    s.field = c.fields[i % 2].name;
    s.offset = 8 * (i % 2);
    s.size = 8;
    s.access = i < 2 ? AccessKind::Read : AccessKind::Write;
    s.function = "k";
    s.kernels = {"k"};
    map.sites.push_back(s);
  }
  map.kernels = {"k"};
  return map;
}

// 100 warps read re and im of 32 consecutive elements (sites 0 and 1 of complexMap).
std::vector<TraceRecord> complexReads() {
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 100; ++w)
    for (unsigned field = 0; field < 2; ++field)
      for (uint64_t k = 0; k < 32; ++k) {
        const uint64_t element = 32 * w + k;
        records.push_back({kBase + element * 16 + 8 * field, element, 0, w, field, 0, uint8_t(field), uint8_t(k), 32});
      }
  return records;
}

TEST(AnalyzeModel, ARecordAlignedToItsSizeIsPickedWhereItMergesAccesses) {
  // 100 warps read re and im of 32 consecutive elements. Per warp: AoS 16 sectors (im reuses re's),
  // 4 + 4 lines, 1 + 1 requests (8-byte loads: the record is aligned to 8); aligned to 16 the same
  // sectors in one 16-byte load (half the lines and requests); SoA 8 + 8 sectors, 2 + 2 lines,
  // 1 + 1 requests. Aligned costs least: it is the pick, though SoA costs less than AoS.
  auto analysis = run(withTrace(complexReads(), 3200, {"k(Complex*)"}, 4), complexMap());
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  ASSERT_TRUE(d.alignable);
  const double w = kL1WavefrontWeight, r = kRequestWeight;
  // The writes the trace missed count their estimates, once between the fields one vector
  // access carries: half of AoS's under the aligned record.
  double missedAoS = 0;
  for (const SiteEvidence& e : d.sites) {
    EXPECT_EQ(e.replayed, e.site.access == AccessKind::Read) << e.site.field;
    if (!e.replayed) missedAoS += e.sectors.aos * (1 + w / 4);
  }
  ASSERT_GT(missedAoS, 0);
  EXPECT_DOUBLE_EQ(d.cost.aos, 100 * (16 + w * 8 + 2 * r) + missedAoS);
  EXPECT_DOUBLE_EQ(d.cost.aligned, 100 * (16 + w * 4 + r) + 0.5 * missedAoS);
  EXPECT_LT(d.cost.aligned, d.cost.soa);
  EXPECT_EQ(d.layout, Layout::Aligned);
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::Aligned);
}

TEST(AnalyzeModel, AccessesToOneElementMergeWhateverTheirSampledCounts) {
  // re and im of one element, in one statement (the site map's `element`), drawn separately by the
  // profile: im's sampled count is 10% above re's. They are still one 16-byte load when aligned.
  SiteMap map = complexMap();
  for (SiteInfo& s : map.sites) s.element = s.access == AccessKind::Read ? "t[g]" : "h[g]";
  Fixture f = withTrace(complexReads(), 3200, {"k(Complex*)"}, 4);
  f.profile.units[0].sites[1] = {3520 / 32, 3520, 3520, 3520, 0, 0};
  auto analysis = run(f, map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  for (const SiteEvidence& e : d.sites) EXPECT_DOUBLE_EQ(e.requests.aligned, 0.5) << e.site.field;
  EXPECT_EQ(d.layout, Layout::Aligned);
}

TEST(AnalyzeModel, AccessesToTwoElementsDoNotMergeThoughTheyRunAsOften) {
  // re of t[xp] and im of t[xm]: as often, in one statement, but two elements: no vector access
  // carries both, whatever the layout, so aligning the record saves nothing.
  SiteMap map = complexMap();
  for (SiteInfo& s : map.sites) s.element = s.offset == 0 ? "t[xp]" : "t[xm]";
  auto analysis = run(withTrace(complexReads(), 3200, {"k(Complex*)"}, 4), map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  for (const SiteEvidence& e : d.sites) EXPECT_DOUBLE_EQ(e.requests.aligned, e.requests.aos) << e.site.field;
  EXPECT_NE(d.layout, Layout::Aligned);
}

TEST(AnalyzeModel, AFlattenedTwoDimensionalArrayIsPricedStoredTransposed) {
  // 100 warps, one row per lane (rows of 4: element r * 4 + k), read x then y of each entry k.
  // Per warp and field: SoA 16 sectors fetched once (its 4 entries of a row share one), in 4 x 4
  // lines; stored transposed the same 16 sectors in 4 x 1 lines. The transposed SoA costs least,
  // and the plan stores it so.
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 100; ++w)
    for (uint64_t k = 0; k < 4; ++k) {
      std::vector<uint64_t> elements;
      for (uint64_t r = 0; r < 32; ++r) elements.push_back((32 * w + r) * 4 + k);
      addGroup(records, 0, elements, w), addGroup(records, 1, elements, w);
    }
  SiteMap map = particleMap();
  for (SiteInfo& s : map.sites) s.rowWidth = 4;
  auto analysis = run(withTrace(records, 12800), map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  EXPECT_EQ(d.transposeWidth, 4u);
  const double w = kL1WavefrontWeight, requests = kRequestWeight * 2 * 400;
  EXPECT_DOUBLE_EQ(d.cost.soa, 2 * 100 * (16 + w * 16) + requests);
  EXPECT_DOUBLE_EQ(d.transposedCost, 2 * 100 * (16 + w * 4) + requests);
  EXPECT_EQ(d.layout, Layout::SoA);
  EXPECT_TRUE(d.transposed);
  const StructPlan& p = analysis->plan.structs[0];
  EXPECT_EQ(p.layout, Layout::SoA);
  EXPECT_EQ(p.transpose, 4u);
  EXPECT_NE(p.reason.find("soa stored transposed costs"), std::string::npos) << p.reason;
  EXPECT_EQ(p.details["model"]["cost"]["soa_transposed"], d.transposedCost);
  // Forced SoA is not transposed: --transpose asks for that.
  AnalyzeOptions forced;
  forced.forced = Layout::SoA;
  auto plain = run(withTrace(records, 12800), map, forced);
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_EQ(plain->plan.structs[0].transpose, 0u);
}

TEST(AnalyzeModel, FieldsACopyNeverReadsAreNoAccesses) {
  // x is copied with the element but never read of the copy (`unread`): nvcc drops its load, so the
  // analysis prices y alone, although the instrumented program reported both; and x's records,
  // first in each warp, do not bring y's AoS sectors into the warp's cache: y fetches them itself.
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 100; ++w) addGroup(records, 0, stride1(32 * w), w), addGroup(records, 1, stride1(32 * w), w);
  SiteMap map = particleMap();
  map.sites[0].unread = true;
  auto analysis = run(withTrace(records, 6400), map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  ASSERT_EQ(d.sites.size(), 1u);
  EXPECT_EQ(d.sites[0].site.field, "y");
  EXPECT_DOUBLE_EQ(d.sectors.aos, 6400);  // 32 sectors per warp, twice the traced executions
  EXPECT_DOUBLE_EQ(d.sectors.soa, 800);   // y's 4
}

TEST(AnalyzeModel, WithoutATraceModelModeIsAClearError) {
  Fixture f = withTrace({}, 32);
  f.profile.trace.reset();
  auto analysis = run(f, particleMap());
  ASSERT_FALSE(static_cast<bool>(analysis));
  std::string message = llvm::toString(analysis.takeError());
  EXPECT_NE(message.find("p.json: has no trace: model mode replays"), std::string::npos) << message;
}

TEST(AnalyzeModel, ATraceOfAnotherRunIsRefused) {
  std::vector<TraceRecord> records;
  addGroup(records, 0, stride1(0), 0);
  Fixture f = withTrace(records, 32);
  f.profile.trace->records = 64;
  auto analysis = run(f, particleMap());
  ASSERT_FALSE(static_cast<bool>(analysis));
  EXPECT_NE(llvm::toString(analysis.takeError()).find("p.trace: holds 32 records but the profile"), std::string::npos);
  // A truncated trace names the file and the offset.
  f = withTrace(records, 32);
  ASSERT_EQ(::truncate((f.dir + "/p.trace").c_str(), 64 + 32 * 10 + 5), 0);
  analysis = run(f, particleMap());
  ASSERT_FALSE(static_cast<bool>(analysis));
  EXPECT_NE(llvm::toString(analysis.takeError()).find("p.trace: at byte 389: the file ends inside record 10"),
            std::string::npos);
}

TEST(AnalyzeModel, HelperSiteIsScaledPerCallingKernel) {
  // A helper reached from k1 (stride-1) and k2 (gather); the trace holds one warp of each, the
  // counters say k1 ran 10 warps and k2 1000. Per kernel: k1 AoS 32 x 10, SoA 4 x 10; k2 32 x 1000.
  SiteMap map = particleMap("h", {"k1", "k2"});
  std::vector<TraceRecord> records;
  addGroup(records, 0, stride1(0), 0, 0);
  addGroup(records, 0, gather(1), 0, 1);
  Fixture f = withTrace(records, 32 * 1010, {"void k1(Particle*)", "k2(Particle*)"});
  f.profile.units[0].sites[1] = {};
  f.profile.units[0].kernelSites = {{0, "k1", {10, 320, 320, 320, 0, 0}}, {0, "k2", {1000, 32000, 32000, 32000, 0, 0}}};
  auto analysis = run(f, map);
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(d.kernels[0].kernel, "k1");
  EXPECT_DOUBLE_EQ(d.kernels[0].sectors.aos, 320);
  EXPECT_DOUBLE_EQ(d.kernels[0].sectors.soa, 40);
  EXPECT_EQ(d.kernels[1].kernel, "k2");
  EXPECT_DOUBLE_EQ(d.kernels[1].sectors.aos, 32000);
  EXPECT_DOUBLE_EQ(d.kernels[1].sectors.soa, 32000);
  EXPECT_EQ(d.layout, Layout::AoS);  // 32320 vs 32040 sectors: under 10% less cost
}

TEST(AnalyzeModel, ForcedLayoutsOverrideTheDecision) {
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 4; ++w) addGroup(records, 0, stride1(32 * w), w), addGroup(records, 1, stride1(32 * w), w);
  Fixture f = withTrace(records, 256);
  for (auto [layout, expected, clusters] :
       {std::tuple{Layout::AoS, Layout::AoS, 0u}, std::tuple{Layout::SoA, Layout::SoA, 8u},
        std::tuple{Layout::Clustered, Layout::Clustered, 2u}}) {
    AnalyzeOptions options;
    options.forced = layout;
    auto analysis = analyze({{"m.sites.json", particleMap()}}, f.profile, f.profilePath, options);
    ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
    const StructPlan& p = analysis->plan.structs[0];
    EXPECT_EQ(analysis->plan.mode, "forced");
    EXPECT_EQ(p.layout, expected);
    EXPECT_EQ(p.clusters.size(), clusters);
    EXPECT_EQ(p.reason, std::string("forced by --layout ") + toString(layout));
  }
  // Forced with the model's predictions in the details.
  AnalyzeOptions options;
  options.forced = Layout::AoS;
  options.mode = AnalyzeMode::Model;
  auto analysis = analyze({{"m.sites.json", particleMap()}}, f.profile, f.profilePath, options);
  ASSERT_TRUE(static_cast<bool>(analysis));
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::AoS);
  EXPECT_EQ(analysis->plan.structs[0].details["sectors_source"], "model");
  // Clustered where the tree gives nothing to split: AoS, and the reason says why.
  Fixture unexecuted = withTrace({}, 0);
  options = {};
  options.forced = Layout::Clustered;
  analysis = analyze({{"m.sites.json", particleMap()}}, unexecuted.profile, unexecuted.profilePath, options);
  ASSERT_TRUE(static_cast<bool>(analysis));
  EXPECT_EQ(analysis->plan.structs[0].layout, Layout::AoS);
  EXPECT_NE(analysis->plan.structs[0].reason.find("no executed accesses"), std::string::npos);
}

TEST(AnalyzePaperAttribution, HelperSiteCountsGoToTheKernelsThatCalledIt) {
  // A helper's two sites, statically reachable from k1 and k2, but the profile says k1 called it
  // 100 times as often. The tree gets one node per kernel with that kernel's Count.
  SiteMap map = particleMap("h", {"k1", "k2"});
  Profile profile;
  UnitProfile unit;
  unit.source = "m.cu";
  unit.sha256 = "abc";
  unit.sites.assign(2, {101, 3232, 3232, 3232, 0, 0});
  for (unsigned s = 0; s < 2; ++s) {
    unit.kernelSites.push_back({s, "k1", {100, 3200, 3200, 3200, 0, 0}});
    unit.kernelSites.push_back({s, "k2", {1, 32, 32, 32, 0, 0}});
  }
  profile.units.push_back(unit);
  auto analysis = analyzePaper({{"m.sites.json", map}}, profile, "p.json");
  ASSERT_TRUE(static_cast<bool>(analysis)) << llvm::toString(analysis.takeError());
  const StructDecision& d = analysis->structs[0];
  ASSERT_TRUE(d.clustering.has_value());
  ASSERT_EQ(d.clustering->tree.kernels.size(), 2u);
  EXPECT_EQ(d.clustering->tree.kernels[0].name, "k1");
  EXPECT_DOUBLE_EQ(d.clustering->tree.kernels[0].loops[0].count, 3200);
  EXPECT_EQ(d.clustering->tree.kernels[1].name, "k2");
  EXPECT_DOUBLE_EQ(d.clustering->tree.kernels[1].loops[0].count, 32);
}

// A launch carrying the unit's kernel id is named by the site map, whatever CUPTI called it; one
// without (an older profile) only by CUPTI's name.
TEST(AnalyzeModel, LaunchesAreNamedByTheRecordedKernelId) {
  std::vector<TraceRecord> records;
  for (uint32_t w = 0; w < 10; ++w) addGroup(records, 0, stride1(32 * w), w);
  Fixture withId = withTrace(records, 320, {"?"});
  withId.profile.trace->launches[0].unitKernels = {{0, 0}};
  auto named = run(withId, particleMap());
  ASSERT_TRUE(static_cast<bool>(named)) << llvm::toString(named.takeError());
  EXPECT_EQ(named->plan.structs[0].details["model"]["kernels"][0]["kernel"], "k");
  auto unnamed = run(withTrace(records, 320, {"?"}), particleMap());
  ASSERT_TRUE(static_cast<bool>(unnamed)) << llvm::toString(unnamed.takeError());
  EXPECT_EQ(unnamed->plan.structs[0].details["model"]["kernels"][0]["kernel"], "?");
}

}  // namespace
}  // namespace relayout
