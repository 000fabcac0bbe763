// The trace replay of model mode (analysis/Model.h) on hand-built traces whose sectors per layout
// are counted here by hand. Particle {x, y, z, w, vx, vy, vz, m}: 8 floats, 32 bytes.
#include "relayout/analysis/Model.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

#include <optional>

namespace relayout {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;  // a cudaMalloc'd array: 256-byte aligned

StructInfo particle() {
  StructInfo p{"Particle", {"m.cu", 1, 8}, 32, 4, {}};
  for (const char* f : {"x", "y", "z", "w", "vx", "vy", "vz", "m"})
    p.fields.push_back({f, "float", 4 * unsigned(p.fields.size()), 4, 4});
  return p;
}

// Site i reads field i of Particle.
SiteMap mapWithSites(unsigned count) {
  SiteMap map;
  map.sourcePath = "m.cu";
  map.structs.push_back(particle());
  for (unsigned i = 0; i < count; ++i) {
    SiteInfo s;
    s.id = i;
    s.structName = "Particle";
    s.field = map.structs[0].fields[i].name;
    s.offset = 4 * i;
    s.size = 4;
    s.function = "k";
    s.kernels = {"k"};
    map.sites.push_back(s);
  }
  return map;
}

// One warp-level execution: lane k reads field `site` of element elements[k].
void addGroup(std::vector<TraceRecord>& out, unsigned site, const std::vector<uint64_t>& elements, uint32_t warp = 0,
              uint64_t base = kBase) {
  for (size_t k = 0; k < elements.size(); ++k)
    out.push_back({base + elements[k] * 32 + 4 * site, elements[k], 0, warp, site, 0, static_cast<uint8_t>(site),
                   static_cast<uint8_t>(k), static_cast<uint8_t>(elements.size())});
}

struct Replayed {
  ModelCounts site[8];
};

// The records written to a temporary trace file and opened; the file is removed with the object.
class TempTrace {
 public:
  explicit TempTrace(const std::vector<TraceRecord>& records) {
    llvm::sys::fs::createTemporaryFile("model", "trace", path_);
    if (llvm::Error err = writeTrace(path_, makeTraceHeader(), records)) {
      ADD_FAILURE() << "writeTrace: " << llvm::toString(std::move(err));
      return;
    }
    auto trace = Trace::open(path_);
    if (!trace) ADD_FAILURE() << "Trace::open: " << llvm::toString(trace.takeError());
    else trace_.emplace(std::move(*trace));
  }
  ~TempTrace() { llvm::sys::fs::remove(path_); }
  TempTrace(const TempTrace&) = delete;
  TempTrace& operator=(const TempTrace&) = delete;
  bool ok() const { return trace_.has_value(); }
  const Trace& operator*() const { return *trace_; }

 private:
  llvm::SmallString<128> path_;
  std::optional<Trace> trace_;
};

Replayed replay(const std::vector<TraceRecord>& records, const SiteMap& map,
                std::vector<std::vector<std::string>> clusters = {}) {
  Replayed out;
  TempTrace trace(records);
  if (!trace.ok()) return out;
  auto result = replayTrace(*trace, {{&map, uint32_t(map.sites.size())}}, {{particle(), clusters}}, {"k"});
  EXPECT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  if (!result) return out;
  for (size_t s = 0; s < map.sites.size(); ++s) out.site[s] = result->at(0, s, 0);
  return out;
}

double get(const double (&v)[kModelLayouts], ModelLayout l) { return v[size_t(l)]; }

std::vector<uint64_t> range(uint64_t first, uint64_t count) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

TEST(Model, StreamingOneFieldOfConsecutiveElements) {
  // 32 lanes read x of elements 0-31. AoS: 32-byte stride, one sector per lane (32), 1 KB = 8
  // lines. SoA: 128 contiguous bytes, 4 sectors, 1 line. AoSoA: the tile's x run, same as SoA.
  // Clustered {x, y, z, w} (16 B) + {vx, vy, vz, m}: 512 bytes, 16 sectors, 4 lines.
  SiteMap map = mapWithSites(2);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(0, 32));
  Replayed r = replay(records, map, {{"x", "y", "z", "w"}, {"vx", "vy", "vz", "m"}});
  const ModelCounts& x = r.site[0];
  EXPECT_EQ(x.warps, 1);
  EXPECT_EQ(x.lanes, 32);
  EXPECT_EQ(get(x.sectors, ModelLayout::AoS), 32);
  EXPECT_EQ(get(x.lines, ModelLayout::AoS), 8);
  EXPECT_EQ(get(x.sectors, ModelLayout::SoA), 4);
  EXPECT_EQ(get(x.lines, ModelLayout::SoA), 1);
  EXPECT_EQ(get(x.sectors, ModelLayout::AoSoA), 4);
  EXPECT_EQ(get(x.lines, ModelLayout::AoSoA), 1);
  EXPECT_EQ(get(x.sectors, ModelLayout::Clustered), 16);
  EXPECT_EQ(get(x.lines, ModelLayout::Clustered), 4);
  for (ModelLayout l : kAllModelLayouts) EXPECT_EQ(get(x.traffic, l), get(x.sectors, l)) << toString(l);
}

TEST(Model, RowsOfAFlattenedTwoDimensionalArrayStoredTransposed) {
  // Lane r reads x of entry (r, k) of rows of 4 (element r * 4 + k), k = 0..3: as AoS 32 lanes
  // 128 bytes apart, 32 sectors and lines; as SoA 16 bytes apart, 16 sectors in 4 lines. Stored
  // transposed (entry (r, k) at k * rows + r), 32 consecutive floats: 4 sectors, 1 line. The
  // other layouts are not transposed.
  SiteMap map = mapWithSites(1);
  std::vector<TraceRecord> records;
  for (uint64_t k = 0; k < 4; ++k) {
    std::vector<uint64_t> elements;
    for (uint64_t r = 0; r < 32; ++r) elements.push_back(r * 4 + k);
    addGroup(records, 0, elements);
  }
  TempTrace trace(records);
  ASSERT_TRUE(trace.ok());
  StructLayoutModel plain{particle(), {}}, transposed{particle(), {}, 4};
  auto a = replayTrace(*trace, {{&map, 1}}, {plain}, {"k"});
  auto b = replayTrace(*trace, {{&map, 1}}, {transposed}, {"k"});
  ASSERT_TRUE(static_cast<bool>(a)) << llvm::toString(a.takeError());
  ASSERT_TRUE(static_cast<bool>(b)) << llvm::toString(b.takeError());
  const ModelCounts& x = a->at(0, 0, 0);
  const ModelCounts& t = b->at(0, 0, 0);
  EXPECT_EQ(get(x.sectors, ModelLayout::AoS), 4 * 32);
  EXPECT_EQ(get(x.sectors, ModelLayout::SoA), 4 * 16);
  EXPECT_EQ(get(x.lines, ModelLayout::SoA), 4 * 4);
  EXPECT_EQ(get(t.sectors, ModelLayout::SoA), 4 * 4);
  EXPECT_EQ(get(t.lines, ModelLayout::SoA), 4 * 1);
  EXPECT_EQ(get(t.traffic, ModelLayout::SoA), 4 * 4);  // every column a sector of its own
  for (ModelLayout l : {ModelLayout::AoS, ModelLayout::AoSoA, ModelLayout::Clustered})
    EXPECT_EQ(get(t.sectors, l), get(x.sectors, l)) << toString(l);
  // A row wider than the replay prices is replayed untransposed.
  StructLayoutModel wide{particle(), {}, kMaxReplayedTranspose + 1};
  auto c = replayTrace(*trace, {{&map, 1}}, {wide}, {"k"});
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(get(c->at(0, 0, 0).sectors, ModelLayout::SoA), get(x.sectors, ModelLayout::SoA));
}

TEST(Model, SecondFieldOfTheSameElementsReusesAoSSectors) {
  // Then the same warp reads y of the same elements: in AoS and in the {x,y,z,w} cluster y lies in
  // the sectors x brought (no new traffic); SoA and AoSoA read 4 new sectors.
  SiteMap map = mapWithSites(2);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(0, 32));
  addGroup(records, 1, range(0, 32));
  Replayed r = replay(records, map, {{"x", "y", "z", "w"}, {"vx", "vy", "vz", "m"}});
  const ModelCounts& y = r.site[1];
  EXPECT_EQ(get(y.sectors, ModelLayout::AoS), 32);
  EXPECT_EQ(get(y.traffic, ModelLayout::AoS), 0);
  EXPECT_EQ(get(y.traffic, ModelLayout::Clustered), 0);
  EXPECT_EQ(get(y.traffic, ModelLayout::SoA), 4);
  EXPECT_EQ(get(y.traffic, ModelLayout::AoSoA), 4);
  // Another warp does not share the first warp's recent sectors.
  records.clear();
  addGroup(records, 0, range(0, 32), 0);
  addGroup(records, 1, range(0, 32), 1);
  EXPECT_EQ(get(replay(records, map).site[1].traffic, ModelLayout::AoS), 32);
}

TEST(Model, RandomGatherOfTwoFieldsFavoursAoS) {
  // 32 lanes gather far-apart elements, reading x then y: every layout touches one sector per lane
  // per access, but AoS (and a cluster holding both) serves y from x's sectors: 32 vs 64.
  SiteMap map = mapWithSites(2);
  std::vector<uint64_t> elements;
  for (uint64_t k = 0; k < 32; ++k) elements.push_back((k * 7919 + 13) % 32768 * 3);
  std::vector<TraceRecord> records;
  addGroup(records, 0, elements);
  addGroup(records, 1, elements);
  Replayed r = replay(records, map, {{"x", "y"}, {"z", "w", "vx", "vy", "vz", "m"}});
  double total[kModelLayouts] = {};
  for (ModelLayout l : kAllModelLayouts) {
    total[size_t(l)] = get(r.site[0].traffic, l) + get(r.site[1].traffic, l);
    EXPECT_EQ(get(r.site[0].sectors, l), 32) << toString(l);
  }
  EXPECT_EQ(total[size_t(ModelLayout::AoS)], 32);
  EXPECT_EQ(total[size_t(ModelLayout::Clustered)], 32);
  EXPECT_EQ(total[size_t(ModelLayout::SoA)], 64);
  EXPECT_EQ(total[size_t(ModelLayout::AoSoA)], 64);
}

TEST(Model, PartialWarpAndBroadcast) {
  // 8 active lanes on elements 0-7: AoS 8 sectors (2 lines), SoA 1 sector. Then 32 lanes on one
  // element: 1 sector everywhere.
  SiteMap map = mapWithSites(2);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(0, 8));
  addGroup(records, 1, std::vector<uint64_t>(32, 100), 3);
  Replayed r = replay(records, map);
  EXPECT_EQ(get(r.site[0].sectors, ModelLayout::AoS), 8);
  EXPECT_EQ(get(r.site[0].lines, ModelLayout::AoS), 2);
  EXPECT_EQ(get(r.site[0].sectors, ModelLayout::SoA), 1);
  // Without a clustered candidate the clustered numbers are AoS's.
  EXPECT_EQ(get(r.site[0].sectors, ModelLayout::Clustered), 8);
  for (ModelLayout l : kAllModelLayouts) EXPECT_EQ(get(r.site[1].sectors, l), 1) << toString(l);
}

TEST(Model, AoSoATilesSplitAStrideOneWarpAtTheTileEdge) {
  // Elements 16-47 cross the 32-element tile edge: x of 16-31 is the tile-0 run's second half
  // (2 sectors), x of 32-47 the tile-1 run's first half (2 sectors): 4 sectors in 2 lines.
  // SoA: bytes 64-191, sectors 2-5 (4), lines 0-1 (2).
  SiteMap map = mapWithSites(1);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(16, 32));
  Replayed r = replay(records, map);
  EXPECT_EQ(get(r.site[0].sectors, ModelLayout::AoSoA), 4);
  EXPECT_EQ(get(r.site[0].lines, ModelLayout::AoSoA), 2);
  EXPECT_EQ(get(r.site[0].sectors, ModelLayout::SoA), 4);
  EXPECT_EQ(get(r.site[0].lines, ModelLayout::SoA), 2);
}

TEST(Model, AddressesOutsideAllocationsKeepTheirSectorsInEveryLayout) {
  SiteMap map = mapWithSites(1);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(0, 32));
  for (TraceRecord& r : records) r.element = kTraceNoElement;
  Replayed rp = replay(records, map);
  for (ModelLayout l : kAllModelLayouts) EXPECT_EQ(get(rp.site[0].sectors, l), 32) << toString(l);
}

TEST(Model, RecordDisagreeingWithItsSiteIsRefused) {
  SiteMap map = mapWithSites(2);
  std::vector<TraceRecord> records;
  addGroup(records, 0, range(0, 4));
  records[2].field = 1;
  TempTrace trace(records);
  ASSERT_TRUE(trace.ok());
  auto result = replayTrace(*trace, {{&map, 2}}, {{particle(), {}}}, {"k"});
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("at byte 157: record 2: field 1 disagrees with site 0"), std::string::npos) << message;
  // A launch the profile does not list.
  result = replayTrace(*trace, {{&map, 2}}, {{particle(), {}}}, {});
  ASSERT_FALSE(static_cast<bool>(result));
  EXPECT_NE(llvm::toString(result.takeError()).find("launch 0 out of range"), std::string::npos);
}

TEST(Model, KernelNamesFromCupti) {
  EXPECT_EQ(kernelNameFromDemangled("computeForces(Body*, int, float)"), "computeForces");
  EXPECT_EQ(kernelNameFromDemangled("void scale<float>(float*, int)"), "scale<float>");
  EXPECT_EQ(kernelNameFromDemangled("bench::copyKernel(float4 const*, float4*, unsigned long)"), "bench::copyKernel");
  EXPECT_EQ(kernelNameFromDemangled("step"), "step");
  EXPECT_TRUE(sameKernel("copyKernel", "bench::copyKernel"));
  EXPECT_TRUE(sameKernel("scale<float>", "scale<float>"));
  EXPECT_FALSE(sameKernel("scale<float>", "scale<double>"));
}

TEST(Model, MemberIndexedAtRunTimeIsPlacedFromItsAddress) {
  // Hist {int n; int bins[7]} (32 bytes); a site reads bins[] with the index known only at run
  // time. One lane reads bins[0] of element 1, then bins[6] of element 1. AoS: bytes 36 and 60 of
  // the array, one sector (the second access reuses it). SoA stores bins variable-major, one array
  // per index: bins[0] and bins[6] of element 1 lie in two arrays, two sectors, which only holds
  // if the index was recovered from the address.
  StructInfo h{"Hist", {"h.cu", 1, 8}, 32, 4, {{"n", "int", 0, 4, 4}, {"bins", "int[7]", 4, 28, 4}}};
  SiteMap map;
  map.sourcePath = "h.cu";
  map.structs.push_back(h);
  SiteInfo s;
  s.id = 0;
  s.structName = "Hist";
  s.field = "bins";
  s.member = "bins[]";
  s.offset = 4;
  s.size = 4;
  map.sites.push_back(s);
  std::vector<TraceRecord> records = {{kBase + 32 + 4, 1, 0, 0, 0, 0, 1, 0, 1}, {kBase + 32 + 4 + 24, 1, 0, 0, 0, 0, 1, 0, 1}};
  TempTrace trace(records);
  ASSERT_TRUE(trace.ok());
  auto result = replayTrace(*trace, {{&map, 1}}, {{h, {}}}, {"k"});
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  const ModelCounts& c = result->at(0, 0, 0);
  EXPECT_EQ(c.traffic[size_t(ModelLayout::AoS)], 1);
  EXPECT_EQ(c.traffic[size_t(ModelLayout::SoA)], 2);
}

TEST(Model, SoAStoresArrayFieldsVariableMajor) {
  // Cell {float rho; int nb[4]} (20 bytes): 32 lanes read nb[2] of elements 0-31. With one array
  // per index (as the SoA rewrite stores it), the warp reads 128 contiguous bytes: 4 sectors;
  // element by element (16-byte stride) it would be 16. Then rho of the same elements: its own
  // array, 4 more sectors, not the nb runs' sectors.
  StructInfo cell{"Cell", {"c.cu", 1, 8}, 20, 4, {{"rho", "float", 0, 4, 4}, {"nb", "int [4]", 4, 16, 4, {4}}}};
  SiteMap map;
  map.sourcePath = "c.cu";
  map.structs.push_back(cell);
  for (unsigned id : {0u, 1u}) {
    SiteInfo s;
    s.id = id;
    s.structName = "Cell";
    s.field = id == 0 ? "nb" : "rho";
    s.member = id == 0 ? "nb[2]" : "";
    s.offset = id == 0 ? 4 + 8 : 0;
    s.size = 4;
    map.sites.push_back(s);
  }
  std::vector<TraceRecord> records;
  for (uint8_t k = 0; k < 32; ++k) records.push_back({kBase + 20u * k + 12, k, 0, 0, 0, 0, 1, k, 32});
  for (uint8_t k = 0; k < 32; ++k) records.push_back({kBase + 20u * k, k, 0, 0, 1, 0, 0, k, 32});
  TempTrace trace(records);
  ASSERT_TRUE(trace.ok());
  auto result = replayTrace(*trace, {{&map, 2}}, {{cell, {}}}, {"k"});
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->at(0, 0, 0).sectors[size_t(ModelLayout::SoA)], 4);
  EXPECT_EQ(result->at(0, 1, 0).traffic[size_t(ModelLayout::SoA)], 4);
  EXPECT_EQ(result->at(0, 0, 0).sectors[size_t(ModelLayout::AoS)], 20);  // 640 bytes at a 20-byte stride
  // Clustered: nb alone in its cluster is split like SoA (4 sectors); beside rho in a 32-byte
  // __align__(16) cluster it is not (one sector per lane).
  auto alone = replayTrace(*trace, {{&map, 2}}, {{cell, {{"rho"}, {"nb"}}}}, {"k"});
  ASSERT_TRUE(static_cast<bool>(alone)) << llvm::toString(alone.takeError());
  EXPECT_EQ(alone->at(0, 0, 0).sectors[size_t(ModelLayout::Clustered)], 4);
  auto together = replayTrace(*trace, {{&map, 2}}, {{cell, {{"rho", "nb"}}}}, {"k"});
  ASSERT_TRUE(static_cast<bool>(together)) << llvm::toString(together.takeError());
  EXPECT_EQ(together->at(0, 0, 0).sectors[size_t(ModelLayout::Clustered)], 32);
}

}  // namespace
}  // namespace relayout
