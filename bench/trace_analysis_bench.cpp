// Speed of model mode: generates a synthetic trace of N records (default 100 million) with a
// matching site map and profile into a temporary folder, then times `analyze --mode model` on it
// (open + mmap, one replay pass, scaling, decision) on one core. Not run by ctest.
//
//   trace_analysis_bench [--records N] [--dir DIR] [--keep]
//
// The mix, per warp of kernel `step` (32 active lanes, 384 records): a streaming pass reading x,
// y, z and writing vx of 32 consecutive elements (4 sites), then a neighbour loop of 2 iterations
// gathering x, y, z and m of random elements (4 sites), over Particle {x, y, z, vx, vy, vz, m, id}
// (8 x 4 bytes = 32 bytes), 4 Mi elements (128 MB).
#include "relayout/analysis/Analyze.h"
#include "relayout/core/Files.h"
#include "relayout/core/Trace.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace relayout;

namespace {

constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kElements = uint64_t(4) << 20;
constexpr unsigned kStreamSites = 4, kGatherSites = 4, kGatherIterations = 2;
constexpr unsigned kGroupsPerWarp = kStreamSites + kGatherSites * kGatherIterations;

SiteMap benchSiteMap() {
  SiteMap map;
  map.sourcePath = "bench.cu";
  map.sourceSha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  StructInfo p{"Particle", {"bench.cu", 1, 8}, 32, 4, {}};
  for (const char* f : {"x", "y", "z", "vx", "vy", "vz", "m", "id"})
    p.fields.push_back({f, f == std::string("id") ? "int" : "float", 4 * unsigned(p.fields.size()), 4, 4});
  map.structs.push_back(p);
  map.functions.push_back({"step", true, {"bench.cu", 10, 17}, {"step"}, {}});
  map.kernels = {"step"};
  map.loops.push_back({0, "for", "step", {"bench.cu", 20, 3}, std::nullopt});
  const char* streamFields[kStreamSites] = {"x", "y", "z", "vx"};
  const char* gatherFields[kGatherSites] = {"x", "y", "z", "m"};
  for (unsigned i = 0; i < kStreamSites + kGatherSites; ++i) {
    SiteInfo s;
    s.id = i;
    s.location = {"bench.cu", 12 + i, 5};
    s.structName = "Particle";
    s.field = i < kStreamSites ? streamFields[i] : gatherFields[i - kStreamSites];
    s.offset = p.field(s.field)->offset;
    s.size = 4;
    s.access = i == 3 ? AccessKind::Write : AccessKind::Read;
    s.function = "step";
    s.kernels = {"step"};
    if (i >= kStreamSites) s.loop = 0u;
    map.sites.push_back(s);
  }
  return map;
}

uint64_t xorshift(uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  uint64_t records = 100'000'000;
  std::string dir;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--records") && i + 1 < argc) records = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else {
      fmt::print(stderr, "usage: trace_analysis_bench [--records N] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    llvm::SmallString<128> temp;
    if (llvm::sys::fs::createUniqueDirectory("relayout-trace-bench", temp)) return 1;
    dir = temp.str().str();
  }
  const std::string tracePath = dir + "/bench.trace", profilePath = dir + "/bench.profile.json",
                    sitesPath = dir + "/bench.sites.json";

  // Generate: one warp at a time, written in chunks.
  auto start = std::chrono::steady_clock::now();
  SiteMap map = benchSiteMap();
  const uint64_t warps = records / (uint64_t(kGroupsPerWarp) * 32);
  const uint32_t warpsPerLaunch = static_cast<uint32_t>((warps + 1) / 2);
  auto writer = TraceWriter::create(tracePath, makeTraceHeader(1, 2, records, 0));
  if (!writer) return fmt::print(stderr, "{}\n", llvm::toString(writer.takeError())), 1;
  std::vector<TraceRecord> chunk;
  chunk.reserve(size_t(kGroupsPerWarp) * 32 * 1024);
  std::vector<uint64_t> siteLanes(map.sites.size());
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto group = [&](uint32_t launch, uint32_t warp, unsigned site, const uint64_t* elements) {
    const SiteInfo& s = map.sites[site];
    uint8_t field = static_cast<uint8_t>(s.offset / 4);
    for (unsigned lane = 0; lane < 32; ++lane)
      chunk.push_back({kBase + elements[lane] * 32 + s.offset, elements[lane], launch, warp, site, 0, field,
                       static_cast<uint8_t>(lane), 32});
    siteLanes[site] += 32;
  };
  for (uint64_t w = 0; w < warps; ++w) {
    uint32_t launch = static_cast<uint32_t>(w / warpsPerLaunch), warp = static_cast<uint32_t>(w % warpsPerLaunch);
    uint64_t elements[32];
    for (unsigned lane = 0; lane < 32; ++lane) elements[lane] = (uint64_t(warp) * 32 + lane) % kElements;
    for (unsigned s = 0; s < kStreamSites; ++s) group(launch, warp, s, elements);
    for (unsigned it = 0; it < kGatherIterations; ++it) {
      for (unsigned lane = 0; lane < 32; ++lane) elements[lane] = xorshift(rng) % kElements;
      for (unsigned s = 0; s < kGatherSites; ++s) group(launch, warp, kStreamSites + s, elements);
    }
    if (chunk.size() + kGroupsPerWarp * 32 > chunk.capacity()) (*writer)->append(chunk), chunk.clear();
  }
  (*writer)->append(chunk);
  const uint64_t written = (*writer)->records();
  if (llvm::Error err = (*writer)->finish()) return fmt::print(stderr, "{}\n", llvm::toString(std::move(err))), 1;

  // The profile: the trace covers 2 launches of 10, so the counters hold 5x its lanes.
  Profile profile;
  profile.device = "synthetic (trace_analysis_bench)";
  profile.created = "2026-01-01T00:00:00Z";
  profile.command = {"trace_analysis_bench"};
  profile.kernels.push_back({"step(Particle*, int)", "_Z4stepP8Particlei", 10, 0});
  UnitProfile unit;
  unit.source = map.sourcePath;
  unit.sha256 = map.sourceSha256;
  for (unsigned s = 0; s < map.sites.size(); ++s) {
    uint64_t lanes = siteLanes[s] * 5, warpsOf = lanes / 32;
    unit.sites.push_back(s < kStreamSites ? SiteCounters{warpsOf, lanes, 32 * warpsOf, 8 * warpsOf, 118 * warpsOf, 0}
                                          : SiteCounters{warpsOf, lanes, 32 * warpsOf, 32 * warpsOf, 0, 0});
  }
  unit.loops = {siteLanes[kStreamSites] * 5};
  profile.units.push_back(unit);
  profile.trace = TraceInfo{"bench.trace", written, 0, records, 1, 2, {}};
  for (uint32_t l = 0; l < 2; ++l) profile.trace->launches.push_back({"step(Particle*, int)", l + 1, 0});
  if (llvm::Error err = writeFileAtomically(profilePath, profile.toJson().dump(1)))
    return fmt::print(stderr, "{}\n", llvm::toString(std::move(err))), 1;
  if (llvm::Error err = writeFileAtomically(sitesPath, map.toJson().dump(1)))
    return fmt::print(stderr, "{}\n", llvm::toString(std::move(err))), 1;
  double generateSeconds = seconds(std::chrono::steady_clock::now() - start);

  // Time the analysis as `relayout analyze --mode model` runs it: load, replay, decide.
  start = std::chrono::steady_clock::now();
  const std::clock_t cpuStart = std::clock();
  auto loadedMap = SiteMap::load(sitesPath);
  auto loadedProfile = Profile::load(profilePath);
  if (!loadedMap || !loadedProfile) return fmt::print(stderr, "cannot reload the generated files\n"), 1;
  AnalyzeOptions options;
  options.mode = AnalyzeMode::Model;
  auto analysis = analyze({{sitesPath, *loadedMap}}, *loadedProfile, profilePath, options);
  double analyzeSeconds = seconds(std::chrono::steady_clock::now() - start);
  double analyzeCpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
  if (!analysis) return fmt::print(stderr, "{}\n", llvm::toString(analysis.takeError())), 1;

  const StructDecision& d = analysis->structs.at(0);
  fmt::print("generated {} records ({:.2f} GB) in {:.1f} s into {}\n", written, written * 32 / 1e9, generateSeconds,
             dir);
  fmt::print("model-mode analysis: {:.2f} s wall, {:.1f} M records/s; {:.2f} s of CPU time (one thread), {:.1f} M "
             "records per CPU second\n",
             analyzeSeconds, written / analyzeSeconds / 1e6, analyzeCpuSeconds, written / analyzeCpuSeconds / 1e6);
  fmt::print("Particle: {} (predicted sectors AoS {:.4g}, SoA {:.4g}, AoSoA {:.4g}, clustered {:.4g})\n",
             toString(d.layout), d.sectors.aos, d.sectors.soa, d.sectors.aosoa, d.sectors.clustered);
  if (!keep) llvm::sys::fs::remove_directories(dir);
  return 0;
}
