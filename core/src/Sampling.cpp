#include "relayout/core/Sampling.h"

#include <cmath>
#include <map>

namespace relayout {

namespace {

uint64_t scaled(uint64_t count, double factor) { return static_cast<uint64_t>(std::llround(double(count) * factor)); }

SiteCounters scaled(const SiteCounters& c, double f) {
  return {scaled(c.warpExecs, f), scaled(c.laneExecs, f), scaled(c.sectors, f),
          scaled(c.lines, f),     scaled(c.nearLanes, f), scaled(c.sharedWarps, f)};
}

}  // namespace

void scaleToWholeRun(UnitProfile& unit, const SiteMap& map) {
  if (unit.kernelBlocks.empty()) return;
  // Executions within classified blocks were sampled too, uniformly: one more factor for all.
  const double exec = std::max(1u, unit.execPeriod);
  const double period = std::max(1u, unit.blockPeriod) * exec;
  std::map<std::string, double> kernelFactor;
  for (const KernelBlocks& k : unit.kernelBlocks)
    kernelFactor[k.kernel] = exec * (k.classified ? double(k.blocks) / double(k.classified) : 1.0);
  auto factorOf = [&](const std::string& kernel) {
    auto it = kernelFactor.find(kernel);
    return it != kernelFactor.end() ? it->second : period;
  };
  std::map<std::string, bool> isKernel;
  for (const FunctionInfo& f : map.functions) isKernel[f.name] = f.isKernel;

  // Helper sites: the sum of their per-kernel rows, each scaled by its kernel.
  std::map<unsigned, SiteCounters> helperTotals;
  std::map<std::string, std::pair<double, double>> helperWarps;  // function -> (scaled, raw) warp executions
  for (KernelSiteCounters& k : unit.kernelSites) {
    const SiteCounters raw = k.counters;
    k.counters = scaled(raw, factorOf(k.kernel));
    helperTotals[k.site] += k.counters;
    if (k.site < map.sites.size()) {
      auto& [s, r] = helperWarps[map.sites[k.site].function];
      s += double(k.counters.warpExecs), r += double(raw.warpExecs);
    }
  }
  for (size_t id = 0; id < unit.sites.size() && id < map.sites.size(); ++id) {
    const SiteInfo& site = map.sites[id];
    if (auto total = helperTotals.find(unsigned(id)); total != helperTotals.end())
      unit.sites[id] = total->second;
    else
      unit.sites[id] = scaled(unit.sites[id], isKernel[site.function] ? factorOf(site.function) : period);
  }
  for (const LoopInfo& loop : map.loops) {
    if (loop.id >= unit.loops.size()) continue;
    double factor = period;
    if (isKernel[loop.function]) {
      factor = factorOf(loop.function);
    } else if (auto w = helperWarps.find(loop.function); w != helperWarps.end() && w->second.second > 0) {
      factor = w->second.first / w->second.second;  // as its callers' accesses were scaled
    }
    unit.loops[loop.id] = scaled(unit.loops[loop.id], factor);
  }
  unit.blockPeriod = 1;
  unit.execPeriod = 1;
}

std::string samplingProblem(const UnitProfile& unit, const SiteMap& map) {
  std::map<std::string, bool> isKernel;
  for (const FunctionInfo& f : map.functions) isKernel[f.name] = f.isKernel;
  for (const KernelBlocks& k : unit.kernelBlocks) {
    if (k.blocks == 0 || k.classified != 0) continue;
    bool counted = false;
    for (size_t id = 0; id < unit.sites.size() && id < map.sites.size() && !counted; ++id)
      counted = map.sites[id].function == k.kernel && isKernel[k.kernel] && unit.sites[id].warpExecs > 0;
    for (const KernelSiteCounters& row : unit.kernelSites) counted |= row.kernel == k.kernel && row.counters.warpExecs > 0;
    if (counted)
      return "kernel " + k.kernel + " ran " + std::to_string(k.blocks) +
             " blocks and classified none (kernel_blocks), yet its sites have counts: only classified blocks count";
  }
  return "";
}

void scaleToWholeRun(Profile& profile, const std::vector<const SiteMap*>& maps) {
  for (UnitProfile& unit : profile.units)
    for (const SiteMap* map : maps)
      if (map->sourceSha256 == unit.sha256) scaleToWholeRun(unit, *map);
}

}  // namespace relayout
