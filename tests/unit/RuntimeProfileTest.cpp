// The runtime's profile writer (runtime/src/ProfileWriter.cpp) without CUDA: fake units whose
// fetch functions return known counters, written through formats' one writer (profileText) and
// read back with core's Profile, which wraps formats' one reader.
#include "relayout/core/Profile.h"
#include "relayout/rt_common.h"
#include "relayout/rt_host.h"

#include <gtest/gtest.h>
#include <llvm/Support/Error.h>

#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <vector>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace relayout;

namespace {

// Counter c of site s of unit A: distinct everywhere, so a swapped row or column shows, and what a
// run can write (lanes 1 to 32 per warp-level execution, lines at most the sectors, ...), which the
// profile reader checks.
unsigned long long valueA(unsigned s, unsigned c) {
  static const unsigned long long kTimes[] = {1, 20, 30, 10, 100, 0};  // warps, lanes, sectors, lines, near, shared
  const unsigned long long warps = 1000ull * (s + 1) + 1;
  return c == 5 ? warps - 7 * (s + 1) : kTimes[c] * warps + c;
}

int fetchA(unsigned long long* out, unsigned numSites) {
  for (unsigned s = 0; s < numSites; ++s)
    for (unsigned c = 0; c < RELAYOUT_COUNTER_COLUMNS; ++c) out[s * RELAYOUT_COUNTER_COLUMNS + c] = valueA(s, c);
  return 0;
}
int fetchB(unsigned long long* out, unsigned) {
  out[0] = 1ull << 40;  // larger than 32 bits must survive
  out[1] = out[2] = 1ull << 41;
  out[3] = 1ull << 40;
  return 0;
}
int fetchFails(unsigned long long*, unsigned) { return 700; }  // cudaErrorIllegalAddress

const std::string kShaA(64, 'a'), kShaB(64, 'b');
const RelayoutUnitDesc kUnitA = {RELAYOUT_ABI_VERSION, "toy.cu", kShaA.c_str(), 3, 1, fetchA};
const RelayoutUnitDesc kUnitB = {RELAYOUT_ABI_VERSION, "dir/other \"quoted\".cu", kShaB.c_str(), 1, 32, fetchB};

class RuntimeProfile : public ::testing::Test {
protected:
  void SetUp() override {
    rt::clearRegisteredUnits();
    dir = fs::temp_directory_path() / ("relayout-rt-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    path = (dir / "profile.json").string();
  }
  void TearDown() override {
    rt::clearRegisteredUnits();
    fs::remove_all(dir);
  }
  Profile load() {
    auto profile = Profile::load(path);
    if (!profile) {
      ADD_FAILURE() << llvm::toString(profile.takeError());
      return {};
    }
    return std::move(*profile);
  }
  fs::path dir;
  std::string path;
};

}  // namespace

TEST_F(RuntimeProfile, RoundTripThroughCoreReader) {
  rt::registerUnit(&kUnitA);
  rt::registerUnit(&kUnitB);
  rt::ProfileMeta meta{"Fake GPU 80GB", {{"_Z6updateP8Particleif", 5, 123456}, {"plain_c_kernel", 2, 77}}};
  ASSERT_EQ(rt::writeProfile(path, meta), "");

  Profile p = load();
  EXPECT_EQ(p.device, "Fake GPU 80GB");
  EXPECT_EQ(p.created.size(), 20u) << p.created;  // 2026-11-22T10:11:12Z
  EXPECT_EQ(p.created.back(), 'Z');
  EXPECT_EQ(p.created[10], 'T');
  EXPECT_EQ(p.command, rt::commandLine());
  EXPECT_FALSE(p.command.empty());

  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "update(Particle*, int, float)");
  EXPECT_EQ(p.kernels[0].mangled, "_Z6updateP8Particleif");
  EXPECT_EQ(p.kernels[0].launches, 5u);
  EXPECT_EQ(p.kernels[0].totalNs, 123456u);
  EXPECT_EQ(p.kernels[1].name, "plain_c_kernel");
  EXPECT_EQ(p.kernels[1].launches, 2u);
  EXPECT_EQ(p.kernels[1].totalNs, 77u);

  ASSERT_EQ(p.units.size(), 2u);
  const UnitProfile& a = p.units[0];
  EXPECT_EQ(a.source, "toy.cu");
  EXPECT_EQ(a.sha256, kShaA);
  EXPECT_EQ(a.blockPeriod, 1u);
  ASSERT_EQ(a.sites.size(), 3u);
  for (unsigned s = 0; s < 3; ++s) {
    EXPECT_EQ(a.sites[s].warpExecs, valueA(s, 0)) << "site " << s;
    EXPECT_EQ(a.sites[s].laneExecs, valueA(s, 1)) << "site " << s;
    EXPECT_EQ(a.sites[s].sectors, valueA(s, 2)) << "site " << s;
    EXPECT_EQ(a.sites[s].lines, valueA(s, 3)) << "site " << s;
    EXPECT_EQ(a.sites[s].nearLanes, valueA(s, 4)) << "site " << s;
    EXPECT_EQ(a.sites[s].sharedWarps, valueA(s, 5)) << "site " << s;
  }
  const UnitProfile& b = p.units[1];
  EXPECT_EQ(b.source, "dir/other \"quoted\".cu");
  EXPECT_EQ(b.blockPeriod, 32u);
  ASSERT_EQ(b.sites.size(), 1u);
  EXPECT_EQ(b.sites[0].warpExecs, 1ull << 40);
  EXPECT_EQ(b.sites[0].sharedWarps, 0u);  // the writer starts every row at zero
  ASSERT_NE(p.findUnit(kShaB), nullptr);
  EXPECT_EQ(p.findUnit(kShaB)->source, b.source);
}

// The CUPTI side reads each unit once per device into the same UnitData: the counters add up.
TEST_F(RuntimeProfile, ReadsFromSeveralDevicesAddUp) {
  rt::registerUnit(&kUnitA);
  std::vector<rt::UnitData> data(1);
  ASSERT_EQ(rt::readUnit(kUnitA, data[0]), "");
  ASSERT_EQ(rt::readUnit(kUnitA, data[0]), "");
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}, data), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  ASSERT_EQ(p.units[0].sites.size(), 3u);
  EXPECT_EQ(p.units[0].sites[2].lines, 2 * valueA(2, 3));
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_FALSE(p.trace.has_value());
}

// A unit whose counters cannot be read means no profile, and no temporary file left behind.
TEST_F(RuntimeProfile, FailedFetchWritesNothing) {
  rt::registerUnit(&kUnitA);
  const RelayoutUnitDesc failing{RELAYOUT_ABI_VERSION, "broken.cu", kShaB.c_str(), 2, 1, fetchFails};
  rt::registerUnit(&failing);
  std::string err = rt::writeProfile(path, {"dev", {}});
  EXPECT_NE(err.find("broken.cu"), std::string::npos) << err;
  EXPECT_NE(err.find("700"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir));
}

// An old profile is replaced whole by rename, never appended to or left half written.
TEST_F(RuntimeProfile, ReplacesExistingFile) {
  { std::ofstream(path) << "not json at all"; }
  rt::registerUnit(&kUnitB);
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  EXPECT_EQ(p.units[0].sha256, kShaB);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST_F(RuntimeProfile, NoUnitsAndZeroSites) {
  ASSERT_EQ(rt::writeProfile(path, {"", {}}), "");
  EXPECT_TRUE(load().units.empty());
  const RelayoutUnitDesc empty{RELAYOUT_ABI_VERSION, "empty.cu", kShaA.c_str(), 0, 1, fetchA};
  rt::registerUnit(&empty);
  ASSERT_EQ(rt::writeProfile(path, {"", {}}), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  EXPECT_TRUE(p.units[0].sites.empty());
}

// A .cpp file the host compiler builds is registered like any unit but has no device symbols:
// reading its counters fails (CUDA error 13, invalid symbol), and there is nothing to read.
TEST_F(RuntimeProfile, AUnitWithNothingOnTheDeviceIsNotRead) {
  RelayoutUnitDesc host{RELAYOUT_ABI_VERSION, "reference.cpp", kShaA.c_str(), 0, 1, fetchFails};
  host.fetch_kernel_blocks = fetchFails;
  host.fetch_kernel_sites = fetchFails;
  rt::registerUnit(&host);
  ASSERT_EQ(rt::writeProfile(path, {"", {}}), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  EXPECT_TRUE(p.units[0].sites.empty());
}

TEST_F(RuntimeProfile, UnwritableFolderIsReported) {
  rt::registerUnit(&kUnitA);
  std::string err = rt::writeProfile((dir / "missing" / "p.json").string(), {"dev", {}});
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
}

// Saves and clears the launcher's rank variables, so the tests behave the same under Slurm or MPI.
class LauncherEnvironment {
 public:
  LauncherEnvironment() {
    for (const char* var : kVars)
      if (const char* v = std::getenv(var)) saved_.emplace_back(var, v), unsetenv(var);
  }
  ~LauncherEnvironment() {
    for (const char* var : kVars) unsetenv(var);
    for (const auto& [var, value] : saved_) setenv(var.c_str(), value.c_str(), 1);
  }

 private:
  static constexpr const char* kVars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK",
                                          "SLURM_PROCID"};
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST(RuntimeHelpers, EveryRankOfAnMpiLauncherWritesItsOwnProfile) {
  LauncherEnvironment clean;
  const char* old = std::getenv("RELAYOUT_PROFILE");
  std::string saved = old ? old : "";
  setenv("RELAYOUT_PROFILE", "/tmp/x/p.json", 1);
  EXPECT_EQ(rt::launcherRank(), "");
  setenv("SLURM_PROCID", "7", 1);
  EXPECT_EQ(rt::profilePath(), "/tmp/x/p.rank7.json");
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);  // Open MPI's own variable wins over Slurm's
  EXPECT_EQ(rt::profilePath(), "/tmp/x/p.rank3.json");
  setenv("RELAYOUT_PROFILE", "/tmp/x/profile", 1);
  EXPECT_EQ(rt::profilePath(), "/tmp/x/profile.rank3");
  if (old) setenv("RELAYOUT_PROFILE", saved.c_str(), 1); else unsetenv("RELAYOUT_PROFILE");
}

TEST(RuntimeHelpers, ProfilePatternsNameTheProcessHostAndProgram) {
  EXPECT_EQ(rt::expandProfilePattern("d/%m-%p.profile.json", "42", "node1", "sim"), "d/sim-42.profile.json");
  EXPECT_EQ(rt::expandProfilePattern("%h/%p%%", "7", "node1", "sim"), "node1/7%");
  EXPECT_EQ(rt::expandProfilePattern("a%zb%", "7", "h", "m"), "a%zb%");  // not patterns: kept as written
}

TEST(RuntimeHelpers, GeneratedUnitsSetTheDefaultProfileAndTheEnvironmentWins) {
  LauncherEnvironment clean;
  const char* old = std::getenv("RELAYOUT_PROFILE");
  std::string saved = old ? old : "";
  unsetenv("RELAYOUT_PROFILE");
  relayout_rt_set_default_profile("/tmp/gen/%p.profile.json");
  relayout_rt_set_default_profile("/tmp/other/%p.profile.json");  // the first unit's wins
  EXPECT_EQ(rt::profilePath(), "/tmp/gen/" + std::to_string(getpid()) + ".profile.json");
  setenv("RELAYOUT_PROFILE", "/tmp/x/p.json", 1);
  EXPECT_EQ(rt::profilePath(), "/tmp/x/p.json");
  rt::clearDefaultProfile();
  if (old) setenv("RELAYOUT_PROFILE", saved.c_str(), 1); else unsetenv("RELAYOUT_PROFILE");
}

TEST(RuntimeHelpers, ProfilePathFromEnvironment) {
  LauncherEnvironment clean;
  const char* old = std::getenv("RELAYOUT_PROFILE");
  std::string saved = old ? old : "";
  setenv("RELAYOUT_PROFILE", "/tmp/x/p.json", 1);
  EXPECT_EQ(rt::profilePath(), "/tmp/x/p.json");
  unsetenv("RELAYOUT_PROFILE");
  EXPECT_EQ(rt::profilePath(), "relayout-profile.json");
  if (old) setenv("RELAYOUT_PROFILE", saved.c_str(), 1);
}

TEST(RuntimeHelpers, Demangle) {
  EXPECT_EQ(rt::demangle("_Z6updateP8Particleif"), "update(Particle*, int, float)");
  EXPECT_EQ(rt::demangle("_Z6gatherILi4EEvPKfPf"), "void gather<4>(float const*, float*)");
  EXPECT_EQ(rt::demangle("extern_c_kernel"), "extern_c_kernel");
}

namespace {
int fetchLoops(unsigned long long* out, unsigned numLoops) {
  for (unsigned l = 0; l < numLoops; ++l) out[l] = 100ull * (l + 1);
  return 0;
}
int fetchLoopsFails(unsigned long long*, unsigned) { return 700; }
}  // namespace

// ABI 2 units report loop counters; they come back from the core reader as units[].loops, and a
// unit of ABI 1 (no loop fields: a shorter descriptor) still registers, with no loops.
TEST_F(RuntimeProfile, LoopCountsRoundTrip) {
  RelayoutUnitDesc withLoops = kUnitA;
  withLoops.num_loops = 3;
  withLoops.fetch_loops = fetchLoops;
  rt::registerUnit(&withLoops);
  struct V1 { unsigned abi; const char* source; const char* sha; unsigned sites, period; RelayoutFetchFn fetch; };
  static const V1 old = {1, "old.cu", kShaB.c_str(), 1, 1, fetchB};
  rt::registerUnit(&old);
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 2u);
  EXPECT_EQ(p.units[0].loops, (std::vector<uint64_t>{100, 200, 300}));
  EXPECT_TRUE(p.units[1].loops.empty());
  EXPECT_EQ(p.units[1].sites.size(), 1u);

  // The core writer keeps them, and a profile without the key (written before loops) reads.
  nlohmann::json doc = p.toJson();
  EXPECT_EQ(doc["units"][0]["loops"], nlohmann::json({100, 200, 300}));
  doc["units"][0].erase("loops");
  auto again = Profile::fromJson(doc, "old-profile.json");
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_TRUE(again->units[0].loops.empty());
  EXPECT_EQ(again->units[0].sites.size(), 3u);
}

TEST_F(RuntimeProfile, FailedLoopFetchWritesNothing) {
  RelayoutUnitDesc broken = kUnitA;
  broken.num_loops = 1;
  broken.fetch_loops = fetchLoopsFails;
  rt::registerUnit(&broken);
  std::string err = rt::writeProfile(path, {"dev", {}});
  EXPECT_NE(err.find("loop counters"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path));
}

// ABI 5: the unit names its functions with their token hashes and each site's function; the
// profile lists per function its site ids in position order and where each lay in its struct.
TEST_F(RuntimeProfile, FunctionsWithHashesAndSiteLayouts) {
  static const char* const names[] = {"kick", "drift"};
  static const char* const hashes[] = {"h-kick", "h-drift"};
  static const unsigned siteFunctions[] = {1, 0, 1};
  static const RelayoutSiteInfo siteInfo[] = {{16, 4, 1, 0}, {16, 0, 0, 0}, {8, 0, 0, 1}};
  RelayoutUnitDesc unit = kUnitA;
  unit.abi_version = 5;
  unit.site_info = siteInfo;
  unit.num_functions = 2;
  unit.function_names = names;
  unit.function_hashes = hashes;
  unit.site_functions = siteFunctions;
  rt::registerUnit(&unit);
  ASSERT_EQ(rt::writeProfile(path, rt::ProfileMeta{}), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  const std::vector<ProfiledFunction>& f = p.units[0].functions;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "kick");
  EXPECT_EQ(f[0].hash, "h-kick");
  EXPECT_EQ(f[0].sites, std::vector<unsigned>{1});
  EXPECT_EQ(f[1].name, "drift");
  EXPECT_EQ(f[1].sites, (std::vector<unsigned>{0, 2}));
  ASSERT_EQ(f[1].layouts.size(), 2u);
  EXPECT_EQ(f[1].layouts[0], (SiteLayout{16, 1, 4}));
  EXPECT_EQ(f[1].layouts[1], (SiteLayout{8, 0, 0}));
  // The core writer writes them back the same way.
  auto again = Profile::fromJson(p.toJson(), "again.json");
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  ASSERT_EQ(again->units[0].functions.size(), 2u);
  EXPECT_EQ(again->units[0].functions[1].layouts, f[1].layouts);
}

// A version-4 descriptor ends before the function fields: they must read as absent, whatever
// lies after it in memory.
TEST_F(RuntimeProfile, AbiFourUnitHasNoFunctions) {
  RelayoutUnitDesc unit = kUnitA;
  unit.abi_version = 4;
  static const char* const names[] = {"garbage"};
  unit.num_functions = 1;
  unit.function_names = names;
  unit.function_hashes = names;
  static const unsigned siteFunctions[] = {0, 0, 0};
  unit.site_functions = siteFunctions;
  rt::registerUnit(&unit);
  ASSERT_EQ(rt::registeredUnits()[0].num_functions, 0u);
  ASSERT_EQ(rt::writeProfile(path, rt::ProfileMeta{}), "");
  EXPECT_TRUE(load().units[0].functions.empty());
}

// Plain clones (rt.cuh): blocks run by the clone's launches are counted once, on the host, and add
// to the blocks run that each device's counters hold; the classified blocks stay the device's.
namespace {
int fetchKernelBlocks(unsigned long long* out, unsigned) {
  out[0] = 10, out[1] = 2;  // kernel 0: blocks run, classified
  out[2] = 0, out[3] = 0;   // the unknown kernel's row
  return 0;
}
int fetchNoCounts(unsigned long long* out, unsigned n) {  // one site's row
  for (unsigned i = 0; i < n * RELAYOUT_COUNTER_COLUMNS; ++i) out[i] = 0;
  return 0;
}
int fetchNoKernelCounts(unsigned long long* out, unsigned n) {  // its rows for kernel 0 and unknown
  for (unsigned i = 0; i < n * RELAYOUT_COUNTER_COLUMNS * 2; ++i) out[i] = 0;
  return 0;
}
const char* const kKernelNames[] = {"step"};
const unsigned long long kPlainBlocks[] = {90, 0};
}  // namespace

TEST_F(RuntimeProfile, PlainCloneBlocksAddOnceToTheBlocksRun) {
  RelayoutUnitDesc unit{};
  unit.abi_version = RELAYOUT_ABI_VERSION;
  unit.source = "toy.cu";
  unit.sha256 = kShaA.c_str();
  unit.num_sites = 1;
  unit.block_period = 8;
  unit.fetch = fetchNoCounts;
  unit.num_kernels = 1;
  unit.kernel_names = kKernelNames;
  unit.fetch_kernel_sites = fetchNoKernelCounts;
  unit.sample_launches = 1;
  unit.fetch_kernel_blocks = fetchKernelBlocks;
  unit.exec_period = 1;
  unit.plain_blocks = kPlainBlocks;
  rt::registerUnit(&unit);
  std::vector<rt::UnitData> data(1);
  ASSERT_EQ(rt::readUnit(unit, data[0]), "");
  ASSERT_EQ(rt::readUnit(unit, data[0]), "");  // a second device
  ASSERT_EQ(rt::writeProfile(path, {"dev", {}}, data), "");
  Profile p = load();
  ASSERT_EQ(p.units.size(), 1u);
  ASSERT_EQ(p.units[0].kernelBlocks.size(), 1u);
  EXPECT_EQ(p.units[0].kernelBlocks[0].blocks, 2 * 10u + 90u);
  EXPECT_EQ(p.units[0].kernelBlocks[0].classified, 2 * 2u);
}

TEST(RuntimeHelpers, PlainCloneNamesJoinTheirKernels) {
  EXPECT_EQ(rt::hookedName("_Z23computeForces__rl_plainP4Bodyif"), "_Z13computeForcesP4Bodyif");
  EXPECT_EQ(rt::hookedName("_ZN5bench20copyKernel__rl_plainEPK6float4PS0_m"), "_ZN5bench10copyKernelEPK6float4PS0_m");
  EXPECT_EQ(rt::hookedName("_Z15step2__rl_plainv"), "_Z5step2v");  // digits inside the name
  EXPECT_EQ(rt::hookedName("_Z6censusI7InStateEvP5Agent"), "_Z6censusI7InStateEvP5Agent");
}

TEST(RuntimeHelpers, TheFirstLaunchesOfEachKernelRunInstrumented) {
  static int a, b;  // two kernels' host functions
  EXPECT_EQ(relayout_rt_launch_hooked(&a, 2), 1);
  EXPECT_EQ(relayout_rt_launch_hooked(&b, 2), 1);
  EXPECT_EQ(relayout_rt_launch_hooked(&a, 2), 1);
  EXPECT_EQ(relayout_rt_launch_hooked(&a, 2), 0);
  EXPECT_EQ(relayout_rt_launch_hooked(&a, 2), 0);
  EXPECT_EQ(relayout_rt_launch_hooked(&b, 2), 1);
  EXPECT_EQ(relayout_rt_launch_hooked(&b, 2), 0);
}

TEST(RuntimeHelpers, LaterLaunchesWhoseGridGrewRunInstrumentedToo) {
  static int check, same;  // a kernel run on a small check problem first; one that never grows
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 14), 1);
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 14), 0);
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 55), 0);    // under 4x the largest run so far
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 7502), 1);  // the timed problem
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 7502), 0);
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 30008), 1);
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 120032), 1);
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 120032), 1);    // the 8th launch: a checkpoint
  EXPECT_EQ(relayout_rt_launch_hooked_grid(&check, 1, 8, 1u << 30), 0);  // RELAYOUT_GROWTH_LAUNCHES spent
  for (int launch = 0; launch < 5; ++launch)
    EXPECT_EQ(relayout_rt_launch_hooked_grid(&same, 2, 0, 512), launch < 2 ? 1 : 0) << "launch " << launch;
}

TEST(RuntimeHelpers, BlockPeriodsKeepSmallAndLargeGridsInBounds) {
  // The defaults (--sample-blocks 8 --min-blocks 16 --max-blocks 256) on the samples' grids.
  EXPECT_EQ(__rl_grid_block_period(7502, 8, 16, 256), 32u);  // sph: 235 blocks classify
  EXPECT_EQ(__rl_grid_block_period(2048, 8, 16, 256), 8u);   // exactly 256: the period as asked
  EXPECT_EQ(__rl_grid_block_period(2049, 8, 16, 256), 16u);
  EXPECT_EQ(__rl_grid_block_period(128, 8, 16, 256), 8u);
  EXPECT_EQ(__rl_grid_block_period(100, 8, 16, 256), 4u);  // 25 blocks
  EXPECT_EQ(__rl_grid_block_period(10, 8, 16, 256), 1u);   // fewer than 16: all
  EXPECT_EQ(__rl_grid_block_period(1ull << 40, 8, 16, 0), 8u);  // no cap
  for (unsigned period : {1u, 4u, 8u, 12u})
    for (unsigned long long blocks = 1; blocks <= 70000; blocks += blocks < 5000 ? 1 : 97) {
      const unsigned long long p = __rl_grid_block_period(blocks, period, 16, 256);
      const unsigned long long classified = (blocks + p - 1) / p;
      if (p == period) continue;
      EXPECT_EQ(p & (p - 1), 0u) << blocks << " blocks, period " << period;
      if (blocks < 16ull * period)
        EXPECT_TRUE(classified >= (blocks < 16 ? blocks : 16) && classified <= 32) << blocks << " blocks";
      else
        EXPECT_TRUE(classified <= 256 && classified > 128) << blocks << " blocks: " << classified;
    }
}

TEST(RuntimeHelpers, ClassifyingBlocksSitInTheGridsFront) {
  // The rasterizer's shading grid at the defaults: period 16, every 4th block of its first 900.
  const unsigned long long shade = 3600, period = __rl_grid_block_period(shade, 8, 16, 256);
  ASSERT_EQ(period, 16u);
  EXPECT_EQ(__rl_grid_block_step(period, 4), 4u);
  EXPECT_TRUE(__rl_grid_block_classifies(0, shade, period, 4));
  EXPECT_TRUE(__rl_grid_block_classifies(896, shade, period, 4));
  EXPECT_FALSE(__rl_grid_block_classifies(900, shade, period, 4));  // the 226th
  EXPECT_FALSE(__rl_grid_block_classifies(2, shade, period, 4));
  EXPECT_TRUE(__rl_grid_block_classifies(1600, shade, period, 1));  // spread: one in 16 everywhere
  EXPECT_FALSE(__rl_grid_block_classifies(1604, shade, period, 1));
  // Any period (--sample-blocks need not be a power of two), front and grid: as many blocks as one
  // in `period` over the grid, none beyond about its first 1/front, and their ranks (a traced
  // warp's region) distinct and dense.
  for (unsigned long long period : {1ull, 2ull, 4ull, 8ull, 12ull, 64ull})
    for (unsigned front : {1u, 2u, 4u, 8u})
      for (unsigned long long blocks : {1ull, 3ull, 7ull, 100ull, 1000ull, 4595ull}) {
        const unsigned long long step = __rl_grid_block_step(period, front);
        unsigned long long count = 0, last = 0;
        for (unsigned long long b = 0; b < blocks; ++b)
          if (__rl_grid_block_classifies(b, blocks, period, front)) {
            EXPECT_EQ(b / step, count) << "block " << b;
            ++count, last = b;
          }
        const std::string at =
            std::to_string(blocks) + " blocks, period " + std::to_string(period) + ", front " + std::to_string(front);
        EXPECT_EQ(count, (blocks + period - 1) / period) << at;
        EXPECT_EQ(__rl_grid_classifying_blocks(blocks, period), count) << at;
        if (front > 1 && period >= front) EXPECT_LT(last, blocks / front + step) << at;
        if (front == 1) EXPECT_EQ(step, period) << at;
      }
}

TEST(RuntimeHelpers, CheckpointLaunchesDoubleTheirDistance) {
  static int one, three, none;  // --sample-launches 1 and 3 with 8 and 2 checkpoints, 2 with none
  std::vector<int> hooked;
  for (int launch = 1; launch <= 5000; ++launch)
    if (relayout_rt_launch_hooked_grid(&one, 1, 8, 1024)) hooked.push_back(launch);
  EXPECT_EQ(hooked, (std::vector<int>{1, 8, 16, 32, 64, 128, 256, 512, 1024}));  // 8 checkpoints at most
  hooked.clear();
  for (int launch = 1; launch <= 100; ++launch)
    if (relayout_rt_launch_hooked_grid(&three, 3, 2, 64)) hooked.push_back(launch);
  EXPECT_EQ(hooked, (std::vector<int>{1, 2, 3, 24, 48}));
  hooked.clear();
  for (int launch = 1; launch <= 100; ++launch)
    if (relayout_rt_launch_hooked_grid(&none, 2, 0, 64)) hooked.push_back(launch);
  EXPECT_EQ(hooked, (std::vector<int>{1, 2}));
}

TEST(RuntimeHelpers, CheckpointsStandForEveryLaunchSinceThePrevious) {
  for (unsigned first = 1; first <= 4; ++first) {
    unsigned long long represented = first;  // the first launches, at weight 1
    for (unsigned j = 0; j < RELAYOUT_MAX_CHECKPOINTS; ++j) {
      represented += __rl_checkpoint_weight(first, j);
      const unsigned long long ordinal = (unsigned long long)first * RELAYOUT_CHECKPOINT_FIRST << j;
      EXPECT_EQ(represented, ordinal) << "N = " << first << ", checkpoint " << j;
      EXPECT_EQ(__rl_checkpoint_index(first, RELAYOUT_MAX_CHECKPOINTS, ordinal), (int)j);
      EXPECT_EQ(__rl_checkpoint_index(first, RELAYOUT_MAX_CHECKPOINTS, ordinal + 1), -1);
      EXPECT_EQ(__rl_checkpoint_index(first, j, ordinal), -1);  // beyond the count asked for
    }
  }
  EXPECT_EQ(__rl_checkpoint_index(0, 8, 0), -1);  // --sample-launches 0: every launch classifies anyway
}

TEST(RuntimeHelpers, AGridGrowsByAFactorOfFour) {
  EXPECT_TRUE(__rl_launch_grew(0, 1));
  EXPECT_FALSE(__rl_launch_grew(14, 55));
  EXPECT_TRUE(__rl_launch_grew(14, 56));
  EXPECT_FALSE(__rl_launch_grew(0, 0));
  EXPECT_FALSE(__rl_launch_grew(~0ull, ~0ull));  // no overflow
}
