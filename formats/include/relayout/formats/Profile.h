// The profile JSON (docs/formats.md, "relayout-profile", version 1): its data, its one writer and its
// one reader. LLVM-free: the runtime (librelayout_rt.a, linked into user programs) writes profiles
// through it and core's Profile wraps it with file-naming llvm::Errors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace relayout {

// Counters of one access site, summed over the warp-level executions that were classified.
struct SiteCounters {
  uint64_t warpExecs = 0;    // warp-level executions classified
  uint64_t laneExecs = 0;    // active lanes summed over those executions (thread-level executions)
  uint64_t sectors = 0;      // distinct 32-byte sectors summed
  uint64_t lines = 0;        // distinct 128-byte lines summed
  uint64_t nearLanes = 0;    // paper's coalescing thread count: per lane, other lanes in [a, a+128]
  uint64_t sharedWarps = 0;  // executions in which at least two lanes used the same address

  // Counters of the same site from other executions (ranks, kernels) add up column by column.
  SiteCounters& operator+=(const SiteCounters& other) {
    warpExecs += other.warpExecs, laneExecs += other.laneExecs, sectors += other.sectors;
    lines += other.lines, nearLanes += other.nearLanes, sharedWarps += other.sharedWarps;
    return *this;
  }
};

// The counters of a site in a non-kernel function, for one kernel that called it.
struct KernelSiteCounters {
  unsigned site = 0;
  std::string kernel;  // the site map's kernel name; "?" when the caller was not instrumented
  SiteCounters counters;
};

// How much of one kernel's work was classified: the scale that undoes sampling.
struct KernelBlocks {
  std::string kernel;       // the site map's kernel name
  uint64_t blocks = 0;      // thread blocks the kernel ran
  uint64_t classified = 0;  // of those, blocks that classified their accesses
};

// Where a site of a profiled function lay in its struct when the profile was recorded: a struct
// whose definition changed since then no longer fits the counters.
struct SiteLayout {
  unsigned structSize = 0;  // bytes of one element
  unsigned field = 0;       // index of the site's field in the struct's fields
  unsigned offset = 0;      // byte offset of what the site touched within the element
  bool operator==(const SiteLayout&) const = default;
};

// One function of the unit as it was instrumented: with its token hash, a later site map can
// reuse these counters for the same function after edits elsewhere (docs/formats.md).
struct ProfiledFunction {
  std::string name;
  std::string hash;             // the site map's functions[].hash
  std::vector<unsigned> sites;  // its site ids, in position order
  std::vector<SiteLayout> layouts;  // per entry of `sites`; empty when the runtime had no site info
};

struct UnitProfile {
  std::string source;
  std::string sha256;
  unsigned blockPeriod = 1;
  std::vector<SiteCounters> sites;  // indexed by site id
  // Loop body executions (active lanes summed) indexed by the site map's loop id; empty in
  // profiles of units instrumented before loops were counted.
  std::vector<uint64_t> loops;
  // Sites in helper functions split by calling kernel (pairs with warp_execs > 0); empty in
  // profiles written before per-kernel attribution.
  std::vector<KernelSiteCounters> kernelSites;
  // Per kernel of the unit, blocks run and classified; empty in profiles written before.
  std::vector<KernelBlocks> kernelBlocks;
  unsigned sampleLaunches = 0;  // classification limited to the first N launches per kernel; 0: all
  unsigned execPeriod = 1;      // about one warp-level execution of each hook in this many classified
  // The unit's functions with sites (ABI 5 units); empty in profiles written before.
  std::vector<ProfiledFunction> functions;
};

struct KernelProfile {
  std::string name;       // demangled
  std::string mangled;
  uint64_t launches = 0;
  uint64_t totalNs = 0;   // summed kernel durations from CUPTI activity records
};

// One kernel launch whose accesses the trace recorded (docs/formats.md, "Trace").
struct TracedLaunch {
  std::string kernel;  // demangled; "?" if CUPTI did not report it
  uint64_t gridId = 0;
  uint64_t stream = 0;
  // Per unit index, the unit's kernel id (its site map's kernels[]) recorded on the GPU; empty in
  // profiles written before kernel ids were carried.
  std::map<unsigned, unsigned> unitKernels;
};

// The profile's description of its binary trace, present when the program was instrumented
// with --trace.
struct TraceInfo {
  std::string file;  // the trace file's name, in the profile's folder
  uint64_t records = 0;
  uint64_t dropped = 0;
  uint64_t capacity = 0;
  unsigned blockPeriod = 1;
  unsigned launchesPerKernel = 0;  // 0 = every launch
  std::vector<TracedLaunch> launches;
  unsigned warpsPerLaunch = 0;     // warps traced per traced launch; 0 = every warp (older runtimes)
};

// What the hardware counted on one source line (relayout profile --hw; docs/formats.md,
// "Hardware metrics"): the line's global memory instructions, warp level, in one function.
struct HwLine {
  std::string file;      // as the cubin's line table names it (absolute for instrumented units)
  unsigned line = 0;
  std::string function;  // demangled name of the kernel CUPTI patched
  uint64_t instructions = 0;  // global memory instructions executed (warp level)
  uint64_t loads = 0;         // of which global loads
  uint64_t stores = 0;        // of which global stores
  uint64_t sectors = 0;       // 32-byte sectors they accessed
  uint64_t idealSectors = 0;  // sectors they would have needed, perfectly coalesced
};

struct HwProfile {
  std::string source;  // "cupti-sass-metrics"
  std::string device;
  std::string chip;
  std::vector<std::pair<std::string, std::string>> metrics;  // row key -> SASS metric name
  uint64_t runtimeInstructions = 0;   // left out: the instrumented build's own code (rt.cuh)
  uint64_t unmappedInstructions = 0;  // left out: no source line
  std::vector<HwLine> lines;
};
nlohmann::json hwToJson(const HwProfile& hw);
HwProfile hwFromJson(const nlohmann::json& j);  // throws nlohmann's exceptions on a malformed object

// Everything one profile file holds.
struct ProfileData {
  static constexpr const char* kFormat = "relayout-profile";
  static constexpr int kVersion = 1;

  std::string device;
  std::string created;
  std::vector<std::string> command;
  std::vector<KernelProfile> kernels;
  std::vector<UnitProfile> units;
  std::optional<TraceInfo> trace;
  std::optional<HwProfile> hw;  // relayout profile --hw
  std::vector<std::string> mergedFrom;  // the files `relayout merge` combined (empty for one run)

  const UnitProfile* findUnit(const std::string& sha256) const;
};

// Site counters are stored as rows in this column order (docs/formats.md).
inline constexpr const char* kProfileCounterColumns[] = {"warp_execs", "lane_execs", "sectors",
                                                         "lines",      "near_lanes", "shared_warps"};

// The writer: the document, and its text as files hold it (one line per kernel, per site row and
// per function, so that large profiles stay readable and diffable).
nlohmann::ordered_json profileToJson(const ProfileData& profile);
std::string profileText(const ProfileData& profile);

// The reader: "" and `out` filled, or a one-line error without the file name (a wrong format or
// version, or "malformed relayout-profile: WHAT").
std::string profileFromJson(const nlohmann::json& doc, ProfileData& out);

}  // namespace relayout
