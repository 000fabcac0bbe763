// Host side of the profiling runtime: the registry of instrumented units and the profile writer.
// These parts need no CUDA, so unit tests link them (target relayout_rt_host); the CUPTI side that
// drives them in an instrumented program lives in librelayout_rt.a (target relayout_rt).
#pragma once

#include "relayout/rt_abi.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace relayout::rt {

struct KernelRecord {
  std::string mangled;     // symbol name as CUPTI reports it
  uint64_t launches = 0;
  uint64_t totalNs = 0;    // summed CUPTI kernel durations
};

// A launch as CUPTI's activity records describe it: the trace names launches by grid id.
struct LaunchRecord {
  uint64_t gridId = 0;
  std::string mangled;  // "" when CUPTI gave no name
  uint64_t stream = 0;
  // The trace: per unit index, the unit's kernel id the GPU recorded for this launch.
  std::map<unsigned, unsigned> unitKernels;
};

// A device allocation the program made (cudaMalloc and relatives), for trace element indices.
struct Allocation {
  uint64_t base = 0;
  uint64_t bytes = 0;
};

// What the profile records besides the counters.
struct ProfileMeta {
  std::string device;                 // GPU name; "" when no device was seen
  std::vector<KernelRecord> kernels;  // written in this order
  std::vector<LaunchRecord> launches;       // only needed when a unit traces
  std::vector<Allocation> allocations;      // oldest first; only needed when a unit traces
  std::string hw;  // the `hw` object as JSON text (relayout profile --hw; rt_hw.h), "" for none
};

// Everything read back from one instrumented unit, summed over the devices it ran on.
struct UnitData {
  std::vector<unsigned long long> counters;     // num_sites rows of 6 columns
  std::vector<unsigned long long> loops;        // num_loops
  std::vector<unsigned long long> kernelSites;  // num_sites x (num_kernels + 1) rows of 6 (ABI 3)
  std::vector<unsigned long long> kernelBlocks; // (num_kernels + 1) x {blocks run, classified} (ABI 3)
  std::vector<RelayoutTraceRecord> trace;       // the records written, as the GPU left them
  unsigned long long traceRequested = 0;        // records the kernels asked for (written + dropped)
};

// Adds a unit without starting CUPTI (relayout_rt_register_unit does both). `descriptor` points to
// a RelayoutUnitDesc of its abi_version, which may be an older, shorter one: it is read as bytes,
// as far as that version goes, and copied; its strings must outlive the registry.
void registerUnit(const void* descriptor);
std::vector<RelayoutUnitDesc> registeredUnits();
void clearRegisteredUnits();  // for tests

// Reads unit's counters, loop counters, per-kernel counters and trace on the current device and
// adds them to `into`. Returns "" or a one-line error.
std::string readUnit(const RelayoutUnitDesc& unit, UnitData& into);

// Writes the profile JSON (docs/formats.md) for the registered units, data[i] being what was read
// of registeredUnits()[i], and, when a unit traced, the trace file beside it (tracePath(path)).
// Each file goes to a temporary file in the same folder, then is renamed, so that a reader never
// sees half of one. Returns "" on success, or a one-line error (then no profile is written).
std::string writeProfile(const std::string& path, const ProfileMeta& meta, const std::vector<UnitData>& data);
// The same, reading each registered unit once through its own fetch functions.
std::string writeProfile(const std::string& path, const ProfileMeta& meta);

// The trace beside a profile: P.json -> P.trace.
std::string tracePath(const std::string& profilePath);

// What writeTrace wrote, for the profile's `trace` object.
struct TraceSummary {
  uint64_t records = 0, dropped = 0, capacity = 0;
  unsigned blockPeriod = 1, launchesPerKernel = 0;
  unsigned warpsPerLaunch = 0;  // 0: every warp (units built before ABI 4)
  std::vector<LaunchRecord> launches;  // indexed by the records' `launch`
};
// Completes the GPU's records (launch index, element index, unit, field) and writes them to path
// in the binary trace format. Returns "" or a one-line error.
std::string writeTrace(const std::string& path, const std::vector<RelayoutUnitDesc>& units,
                       const std::vector<UnitData>& data, const ProfileMeta& meta, TraceSummary& summary);
// Writes bytes to path through a temporary file and a rename. Returns "" or a one-line error.
std::string writeFileAtomically(const std::string& path, const std::string& bytes);

// $RELAYOUT_PROFILE, else the default a unit set (setDefaultProfile), else relayout-profile.json in
// the working folder; its patterns expanded (expandProfilePattern); under an MPI launcher P.json
// becomes P.rankN.json.
std::string profilePath();
// The profile path to use when $RELAYOUT_PROFILE is not set; the first unit to set one wins.
void setDefaultProfile(const std::string& pattern);
void clearDefaultProfile();  // for tests
// LLVM_PROFILE_FILE-style patterns, so that parallel runs do not collide: %p the process id, %h
// the host name, %m the program's file name, %% a percent sign; any other %X is kept as written.
std::string expandProfilePattern(const std::string& pattern, const std::string& pid, const std::string& host,
                                 const std::string& program);
// The rank an MPI launcher (or Slurm) gave this process, or "" outside one.
std::string launcherRank();

// Helpers shared with the CUPTI side; exposed for tests.
std::string demangle(const std::string& mangled);  // returns its input when it is not a C++ name
// A plain clone's mangled kernel name as its instrumented kernel's (`_Z23computeForces__rl_plainP4Bodyif`
// -> `_Z13computeForcesP4Bodyif`): one record per kernel in the profile (PlainLaunches.cpp).
std::string hookedName(const std::string& mangled);
std::string utcTimestamp();                        // e.g. 2026-11-22T10:11:12Z
std::vector<std::string> commandLine();            // from /proc/self/cmdline

}  // namespace relayout::rt
