// `--hw`: per-instruction SASS metrics summed per source line, and the profile's `hw` object.
// No CUDA here (unit tests link it); HwMetrics.cpp collects the samples.
#include "relayout/rt_hw.h"
#include "relayout/rt_host.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <map>
#include <tuple>

namespace relayout::rt::hw {

const char* const kMetricNames[kNumMetrics] = {
    "smsp__sass_inst_executed",           "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st", "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal"};
const char* const kMetricKeys[kNumMetrics] = {"instructions", "loads", "stores", "sectors", "ideal_sectors"};

bool requested() {
  const char* v = std::getenv("RELAYOUT_HW");
  return v && *v && std::string(v) != "0";
}

std::string sourcePath(const char* fileName, const char* dirName) {
  const std::string file = fileName ? fileName : "";
  const std::string dir = dirName ? dirName : "";
  if (file.empty() || file.front() == '/' || dir.empty()) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

bool isRuntimeFile(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base == "rt.cuh" || base == "warp_classify.h" || path.find("include/relayout/") != std::string::npos;
}

bool isGlobalMemory(const PcSample& pc) {
  return pc.values[kGlobalLoads] || pc.values[kGlobalStores] || pc.values[kSectors] || pc.values[kIdealSectors];
}

std::string renderHwJson(const std::string& device, const std::string& chip, const std::vector<PcSample>& pcs) {
  using Key = std::tuple<std::string, unsigned, std::string>;  // file, line, demangled function
  std::map<Key, std::array<uint64_t, kNumMetrics>> lines;
  uint64_t runtimeInst = 0, unmappedInst = 0;
  for (const PcSample& pc : pcs) {
    if (!isGlobalMemory(pc)) continue;
    if (pc.line == 0 || pc.file.empty()) {
      unmappedInst += pc.values[kInstExecuted];
      continue;
    }
    if (isRuntimeFile(pc.file)) {
      runtimeInst += pc.values[kInstExecuted];
      continue;
    }
    std::array<uint64_t, kNumMetrics>& sums = lines[Key{pc.file, pc.line, demangle(pc.function)}];
    for (unsigned m = 0; m < kNumMetrics; ++m) sums[m] += pc.values[m];
  }

  nlohmann::ordered_json metrics;
  for (unsigned m = 0; m < kNumMetrics; ++m) metrics[kMetricKeys[m]] = kMetricNames[m];
  const nlohmann::ordered_json excluded = {{"runtime_instructions", runtimeInst},
                                           {"unmapped_instructions", unmappedInst}};
  std::string out = "{\n";
  out += "    \"source\": \"cupti-sass-metrics\",\n";
  out += "    \"device\": " + nlohmann::json(device).dump() + ",\n";
  out += "    \"chip\": " + nlohmann::json(chip).dump() + ",\n";
  out += "    \"metrics\": " + metrics.dump() + ",\n";
  out += "    \"excluded\": " + excluded.dump() + ",\n";
  out += "    \"lines\": [";
  bool first = true;
  for (const auto& [key, sums] : lines) {
    nlohmann::ordered_json row = {{"file", std::get<0>(key)}, {"line", std::get<1>(key)}, {"function", std::get<2>(key)}};
    for (unsigned m = 0; m < kNumMetrics; ++m) row[kMetricKeys[m]] = sums[m];
    out += (first ? "\n      " : ",\n      ") + row.dump();
    first = false;
  }
  out += lines.empty() ? "]\n  }" : "\n    ]\n  }";
  return out;
}

}  // namespace relayout::rt::hw
