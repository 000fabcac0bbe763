// Host side of the profiling runtime: the registry of instrumented units and the profile writer.
// These parts need no CUDA, so unit tests link them (target relayout_rt_host); the CUPTI side that
// drives them in an instrumented program lives in librelayout_rt.a (target relayout_rt).
#pragma once

#include "relayout/rt_abi.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace relayout::rt {

struct KernelRecord {
  std::string mangled;     // symbol name as CUPTI reports it
  uint64_t launches = 0;
  uint64_t totalNs = 0;    // summed CUPTI kernel durations
};

// What the profile records besides the counters.
struct ProfileMeta {
  std::string device;                 // GPU name; "" when no device was seen
  std::vector<KernelRecord> kernels;  // written in this order
};

// Fills out[unit.num_sites * 6]; returns 0 or a cudaError_t value.
using FetchFn = std::function<int(const RelayoutUnitDesc& unit, unsigned long long* out)>;

// Adds a unit without starting CUPTI (relayout_rt_register_unit does both). The descriptor is
// copied; its strings must outlive the registry.
void registerUnit(const RelayoutUnitDesc& unit);
std::vector<RelayoutUnitDesc> registeredUnits();
void clearRegisteredUnits();  // for tests

// Reads every registered unit's counters (through fetch, or each unit's own fetch function when
// fetch is empty) and writes the profile JSON (docs/formats.md) to path: to a temporary file in the
// same folder, then renamed, so that a reader never sees half a profile. Returns "" on success, or
// a one-line error (then nothing is written).
// Loop counters (units of ABI 2) are read the same way, through fetchLoops (out[unit.num_loops]) or
// each unit's fetch_loops.
std::string writeProfile(const std::string& path, const ProfileMeta& meta, const FetchFn& fetch = {},
                         const FetchFn& fetchLoops = {});

// $RELAYOUT_PROFILE, or relayout-profile.json in the working folder; under an MPI launcher
// P.json becomes P.rankN.json.
std::string profilePath();
// The rank an MPI launcher (or Slurm) gave this process, or "" outside one.
std::string launcherRank();

// Helpers shared with the CUPTI side; exposed for tests.
std::string demangle(const std::string& mangled);  // returns its input when it is not a C++ name
std::string utcTimestamp();                        // e.g. 2026-11-22T10:11:12Z
std::vector<std::string> commandLine();            // from /proc/self/cmdline

}  // namespace relayout::rt
