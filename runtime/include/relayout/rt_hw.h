// `relayout profile --hw`: what the hardware counted per source line, next to relayout's own
// counters. The CUPTI side (runtime/src/HwMetrics.cpp) reads per-instruction SASS metrics and maps
// each instruction to file:line; this CUDA-free part filters and sums them per line and renders the
// profile's `hw` object (docs/formats.md, "Hardware metrics"), so unit tests can check it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relayout::rt::hw {

// The SASS metrics collected, in this order (names as CUPTI knows them on sm_70 and later).
enum Metric : unsigned { kInstExecuted, kGlobalLoads, kGlobalStores, kSectors, kIdealSectors, kNumMetrics };
extern const char* const kMetricNames[kNumMetrics];
// The profile's keys for them, per line row.
extern const char* const kMetricKeys[kNumMetrics];

// One SASS instruction with what it counted, mapped to its source line (line 0: not mapped).
struct PcSample {
  std::string file;      // path as the cubin's line table gives it (see sourcePath)
  unsigned line = 0;
  std::string function;  // mangled name of the function CUPTI patched (the kernel)
  uint64_t values[kNumMetrics] = {};
};

// RELAYOUT_HW is set to something other than "" or "0" (relayout profile --hw sets it to 1).
bool requested();

// A line-table entry's path: fileName when absolute, else dirName/fileName ("" when neither).
std::string sourcePath(const char* fileName, const char* dirName);

// The instrumented build's own code: rt.cuh, warp_classify.h and anything else under an
// include/relayout/ folder. Its instructions (the counters' atomics) are left out of the lines.
bool isRuntimeFile(const std::string& path);

// A global memory instruction: it loaded, stored or moved sectors of global memory.
bool isGlobalMemory(const PcSample& pc);

// Sums the global memory instructions per (file, line, function) and renders the profile's `hw`
// object as JSON text (one line per row). Instructions of the runtime's files and unmapped ones
// are counted in `excluded` only.
std::string renderHwJson(const std::string& device, const std::string& chip, const std::vector<PcSample>& pcs);

}  // namespace relayout::rt::hw
