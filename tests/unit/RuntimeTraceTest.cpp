// The runtime's per-kernel counters and trace writer (runtime/src/ProfileWriter.cpp,
// TraceWriter.cpp) without CUDA: a fake ABI-3 unit whose fetch functions return what a GPU would
// have left, written (through formats/' TraceFileWriter and profile writer) and read back with
// core's Trace and Profile (formats' header check and profile reader).
#include "relayout/core/Profile.h"
#include "relayout/core/Trace.h"
#include "relayout/rt_host.h"

#include <gtest/gtest.h>
#include <llvm/Support/Error.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace relayout;

namespace {

constexpr unsigned kSites = 3, kKernels = 2, kColumns = RELAYOUT_COUNTER_COLUMNS;
// Site 0 is in a kernel; sites 1 and 2 in a helper called by both kernels (and, for site 2, from
// a caller that is not an instrumented kernel: the last kernel row).
const RelayoutSiteInfo kSiteInfo[kSites] = {{32, 0, 0, 0}, {32, 4, 1, 1}, {32, 12, 3, 1}};
const char* const kKernelNames[kKernels] = {"integrate", "collide"};

// A row that a run can write (the profile reader checks): from its warp-level executions, lanes
// one more, sectors two more, lines one fewer, near lanes four more, shared warps five fewer.
unsigned long long column(unsigned long long warps, unsigned c) {
  static const long long kOffsets[] = {0, 1, 2, -1, 4, -5};
  return warps + kOffsets[c];
}
// Site s: warp_execs = 10 + s * kColumns.
int fetchTotals(unsigned long long* out, unsigned sites) {
  for (unsigned s = 0; s < sites; ++s)
    for (unsigned c = 0; c < kColumns; ++c) out[s * kColumns + c] = column(10 + s * kColumns, c);
  return 0;
}
// Row (site, kernel): warp_execs = 100 * site + kernel + 1, except the rows left at zero.
int fetchKernelSites(unsigned long long* out, unsigned sites) {
  for (unsigned s = 0; s < sites; ++s)
    for (unsigned k = 0; k <= kKernels; ++k)
      for (unsigned c = 0; c < kColumns; ++c) {
        const bool reached = (s == 0 && k == 0) || (s == 1 && k < kKernels) || s == 2;
        out[(s * (kKernels + 1) + k) * kColumns + c] = reached ? column(100 * s + k + 1, c) : 0;
      }
  return 0;
}

constexpr unsigned long long kCapacity = 6, kBase = 0x7f0000001000ull;
RelayoutTraceRecord gpuRecord(unsigned long long addr, unsigned long long grid, unsigned site, unsigned lane,
                              unsigned group, unsigned kernel) {
  RelayoutTraceRecord r{};
  r.addr = addr;
  r.element = grid;  // as the GPU leaves it
  r.launch = kernel;
  r.warp = 5;
  r.site = site;
  r.lane = static_cast<unsigned char>(lane);
  r.group = static_cast<unsigned char>(group);
  return r;
}
// Two warp accesses that fit (3 lanes of grid 77, 2 of grid 78) and one of 4 lanes that did not.
int fetchTrace(RelayoutTraceRecord* out, unsigned long long* requested) {
  const RelayoutTraceRecord written[] = {
      gpuRecord(kBase + 0 * 32 + 4, 77, 1, 0, 3, 1), gpuRecord(kBase + 1 * 32 + 4, 77, 1, 1, 3, 1),
      gpuRecord(kBase + 2 * 32 + 4, 77, 1, 2, 3, 1), gpuRecord(kBase + 9 * 32 + 12, 78, 2, 7, 2, 2),
      gpuRecord(0x10, 78, 2, 8, 2, 2)};  // an address in no allocation
  std::memset(out, 0, kCapacity * sizeof *out);
  std::memcpy(out, written, sizeof written);
  *requested = 5 + 4;
  return 0;
}

RelayoutUnitDesc tracingUnit() {
  static const std::string sha(64, 'c');
  RelayoutUnitDesc u{};
  u.abi_version = RELAYOUT_ABI_VERSION;
  u.source = "sph.cu";
  u.sha256 = sha.c_str();
  u.num_sites = kSites;
  u.block_period = 8;
  u.fetch = fetchTotals;
  u.num_kernels = kKernels;
  u.kernel_names = kKernelNames;
  u.fetch_kernel_sites = fetchKernelSites;
  u.site_info = kSiteInfo;
  u.trace_capacity = kCapacity;
  u.trace_launches = 2;
  u.fetch_trace = fetchTrace;
  return u;
}

class RuntimeTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    rt::clearRegisteredUnits();
    dir = fs::temp_directory_path() / ("relayout-trace-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    path = (dir / "run.json").string();
  }
  void TearDown() override {
    rt::clearRegisteredUnits();
    fs::remove_all(dir);
  }
  fs::path dir;
  std::string path;
};

template <class T>
T at(const std::string& bytes, size_t offset) {
  T value;
  std::memcpy(&value, &bytes[offset], sizeof value);
  return value;
}

}  // namespace

TEST_F(RuntimeTrace, HelperSitesAreSplitByCallingKernel) {
  const RelayoutUnitDesc tracing = tracingUnit();
  rt::registerUnit(&tracing);
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}), "");
  auto profile = Profile::load(path);
  ASSERT_TRUE(bool(profile)) << llvm::toString(profile.takeError());
  const UnitProfile& unit = profile->units.at(0);
  // Site 0 lies in a kernel: no split. Site 1: both kernels. Site 2: both and the unknown caller.
  ASSERT_EQ(unit.kernelSites.size(), 5u);
  EXPECT_EQ(unit.kernelSites[0].site, 1u);
  EXPECT_EQ(unit.kernelSites[0].kernel, "integrate");
  EXPECT_EQ(unit.kernelSites[0].counters.warpExecs, 101u);
  EXPECT_EQ(unit.kernelSites[1].kernel, "collide");
  EXPECT_EQ(unit.kernelSites[1].counters.laneExecs, 103u);
  EXPECT_EQ(unit.kernelSites[4].site, 2u);
  EXPECT_EQ(unit.kernelSites[4].kernel, "?");
  EXPECT_EQ(unit.kernelSites[4].counters.warpExecs, 203u);
  EXPECT_EQ(unit.sites.at(2).warpExecs, 10u + 2 * kColumns);  // totals still come from fetch
}

TEST_F(RuntimeTrace, TraceFileFollowsTheDocumentedLayout) {
  const RelayoutUnitDesc tracing = tracingUnit();
  rt::registerUnit(&tracing);
  rt::ProfileMeta meta{"dev", {}, {{78, "_Z7collidev", 4}, {77, "_Z9integratev", 3}}, {{kBase, 1 << 20}}};
  ASSERT_EQ(rt::writeProfile(path, meta), "");
  ASSERT_EQ(rt::tracePath(path), (dir / "run.trace").string());

  std::ifstream in(dir / "run.trace", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 64u + 5 * 32);
  EXPECT_EQ(std::string(bytes.data(), 8), std::string("RLTRACE\0", 8));
  EXPECT_EQ(at<uint32_t>(bytes, 8), 1u);
  EXPECT_EQ(at<uint32_t>(bytes, 12), 32u);
  EXPECT_EQ(at<uint64_t>(bytes, 16), 5u);  // records
  EXPECT_EQ(at<uint64_t>(bytes, 24), 4u);  // dropped: the group of 4 that did not fit
  EXPECT_EQ(at<uint32_t>(bytes, 32), 8u);  // block period
  EXPECT_EQ(at<uint32_t>(bytes, 36), 2u);  // launches per kernel
  EXPECT_EQ(at<uint64_t>(bytes, 40), kCapacity);

  auto record = [&](size_t i) { return 64 + i * 32; };
  // Record 1: lane 1 of the first group, element 1 (address - offset 4 - base) / 32.
  EXPECT_EQ(at<uint64_t>(bytes, record(1)), kBase + 32 + 4);
  EXPECT_EQ(at<uint64_t>(bytes, record(1) + 8), 1u);
  EXPECT_EQ(at<uint32_t>(bytes, record(1) + 16), 0u);  // launch 0: grid 77, first seen
  EXPECT_EQ(at<uint32_t>(bytes, record(1) + 20), 5u);  // warp
  EXPECT_EQ(at<uint32_t>(bytes, record(1) + 24), 1u);  // site
  EXPECT_EQ(uint8_t(bytes[record(1) + 28]), 0u);       // unit
  EXPECT_EQ(uint8_t(bytes[record(1) + 29]), 1u);       // field
  EXPECT_EQ(uint8_t(bytes[record(1) + 30]), 1u);       // lane
  EXPECT_EQ(uint8_t(bytes[record(1) + 31]), 3u);       // group
  // Record 3: site 2 at offset 12 of element 9, launch 1 (grid 78), field 3.
  EXPECT_EQ(at<uint64_t>(bytes, record(3) + 8), 9u);
  EXPECT_EQ(at<uint32_t>(bytes, record(3) + 16), 1u);
  EXPECT_EQ(uint8_t(bytes[record(3) + 29]), 3u);
  // Record 4: an address in no allocation has no element.
  EXPECT_EQ(at<uint64_t>(bytes, record(4) + 8), ~0ull);

  auto profile = Profile::load(path);
  ASSERT_TRUE(bool(profile)) << llvm::toString(profile.takeError());
  ASSERT_TRUE(profile->trace.has_value());
  const TraceInfo& t = *profile->trace;
  EXPECT_EQ(t.file, "run.trace");
  EXPECT_EQ(t.records, 5u);
  EXPECT_EQ(t.dropped, 4u);
  EXPECT_EQ(t.capacity, kCapacity);
  EXPECT_EQ(t.blockPeriod, 8u);
  EXPECT_EQ(t.launchesPerKernel, 2u);
  ASSERT_EQ(t.launches.size(), 2u);
  EXPECT_EQ(t.launches[0].kernel, "integrate()");
  EXPECT_EQ(t.launches[0].gridId, 77u);
  EXPECT_EQ(t.launches[0].stream, 3u);
  EXPECT_EQ(t.launches[1].kernel, "collide()");
}

// A grid CUPTI never described is still a launch: of the kernel whose id the GPU stored, or of
// an unknown kernel.
TEST_F(RuntimeTrace, GridsCuptiDidNotDescribe) {
  const RelayoutUnitDesc tracing = tracingUnit();
  rt::registerUnit(&tracing);
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}), "");
  auto profile = Profile::load(path);
  ASSERT_TRUE(bool(profile)) << llvm::toString(profile.takeError());
  ASSERT_EQ(profile->trace->launches.size(), 2u);
  EXPECT_EQ(profile->trace->launches[0].kernel, "collide");  // kernel id 1
  EXPECT_EQ(profile->trace->launches[0].gridId, 77u);
  EXPECT_EQ(profile->trace->launches[1].kernel, "?");  // kernel id 2: not an instrumented kernel
  // The kernel id reaches the profile per unit, so the analysis need not match names.
  EXPECT_EQ(profile->trace->launches[0].unitKernels, (std::map<unsigned, unsigned>{{0, 1}}));
  EXPECT_TRUE(profile->trace->launches[1].unitKernels.empty());
}

// The runtime writes the trace without core (it must not link LLVM); core's reader, which the
// model replay uses, must accept what it writes, record for record.
TEST_F(RuntimeTrace, CoreReaderAcceptsTheRuntimesTrace) {
  const RelayoutUnitDesc tracing = tracingUnit();
  rt::registerUnit(&tracing);
  rt::ProfileMeta meta{"dev", {}, {{78, "_Z7collidev", 4}, {77, "_Z9integratev", 3}}, {{kBase, 1 << 20}}};
  ASSERT_EQ(rt::writeProfile(path, meta), "");
  auto trace = Trace::open((dir / "run.trace").string());
  ASSERT_TRUE(bool(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->header().records, 5u);
  EXPECT_EQ(trace->header().dropped, 4u);
  EXPECT_EQ(trace->header().capacity, kCapacity);
  ASSERT_EQ(trace->records().size(), 5u);
  EXPECT_EQ(trace->records()[1].element, 1u);
  EXPECT_EQ(trace->records()[3].field, 3u);
  TraceLimits limits{{kSites}, 2};
  llvm::Error err = checkTraceRecords(*trace, limits);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
}
