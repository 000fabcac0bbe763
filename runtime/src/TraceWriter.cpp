// Writes the binary trace (docs/formats.md, "Trace"): the GPU's records completed with what only
// the host knows — which launch a grid id was, which allocation and element an address falls in.
#include "relayout/rt_host.h"

#include "relayout/formats/Trace.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>

namespace relayout::rt {
namespace {

// The GPU writes records in the file's layout (formats/include/relayout/formats/Trace.h).
static_assert(sizeof(RelayoutTraceRecord) == sizeof(TraceRecord), "the trace format has 32-byte records");
static_assert(offsetof(RelayoutTraceRecord, element) == offsetof(TraceRecord, element) &&
                  offsetof(RelayoutTraceRecord, launch) == offsetof(TraceRecord, launch) &&
                  offsetof(RelayoutTraceRecord, warp) == offsetof(TraceRecord, warp) &&
                  offsetof(RelayoutTraceRecord, site) == offsetof(TraceRecord, site) &&
                  offsetof(RelayoutTraceRecord, unit) == offsetof(TraceRecord, unit) &&
                  offsetof(RelayoutTraceRecord, field) == offsetof(TraceRecord, field) &&
                  offsetof(RelayoutTraceRecord, lane) == offsetof(TraceRecord, lane) &&
                  offsetof(RelayoutTraceRecord, group) == offsetof(TraceRecord, group),
              "RelayoutTraceRecord must match the trace file's record layout");

// Finds the allocation holding an address. Allocations made later win, so an address reused after
// a free is attributed to the newest allocation (the trace has no timestamps to do better).
class AllocationIndex {
 public:
  explicit AllocationIndex(const std::vector<Allocation>& allocations) {
    // Equal bases keep insertion order, so walking down from upper_bound meets the newest first.
    for (const Allocation& a : allocations) byBase_.emplace(a.base, a.bytes);
  }
  // The allocation's base, or 0 when none holds addr. An older, larger allocation starting
  // further down may hold addr too; look a few below, not all, to stay fast for stray addresses.
  uint64_t baseOf(uint64_t addr) const {
    auto it = byBase_.upper_bound(addr);
    for (int step = 0; step < 16 && it != byBase_.begin(); ++step) {
      --it;
      if (addr - it->first < it->second) return it->first;
    }
    return 0;
  }

 private:
  std::multimap<uint64_t, uint64_t> byBase_;  // base -> bytes
};

}  // namespace

std::string writeTrace(const std::string& path, const std::vector<RelayoutUnitDesc>& units,
                       const std::vector<UnitData>& data, const ProfileMeta& meta, TraceSummary& summary) {
  summary = {};
  std::map<uint64_t, const LaunchRecord*> launchByGrid;
  for (const LaunchRecord& l : meta.launches) launchByGrid.emplace(l.gridId, &l);
  std::map<uint64_t, unsigned> launchIndex;  // grid id -> index in summary.launches
  const AllocationIndex allocations(meta.allocations);

  size_t total = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    if (units[u].abi_version < 3 || units[u].trace_capacity == 0) continue;
    total += data[u].trace.size();
    summary.capacity += units[u].trace_capacity;
    summary.dropped += data[u].traceRequested - data[u].trace.size();
    summary.blockPeriod = units[u].block_period;
    summary.launchesPerKernel = units[u].trace_launches;
    summary.warpsPerLaunch = units[u].trace_warps;
  }
  std::vector<TraceRecord> out;
  out.reserve(total);
  for (size_t u = 0; u < units.size(); ++u) {
    const RelayoutUnitDesc& unit = units[u];
    if (unit.abi_version < 3 || unit.trace_capacity == 0) continue;
    if (u > 255) return "more than 256 instrumented units trace; the trace format numbers units with one byte";
    for (RelayoutTraceRecord r : data[u].trace) {
      const uint64_t grid = r.element;  // the GPU stored the grid id there
      auto [index, added] = launchIndex.try_emplace(grid, unsigned(summary.launches.size()));
      if (added) {
        // CUPTI names the launch; failing that, the kernel id the GPU stored names its kernel.
        auto known = launchByGrid.find(grid);
        const bool named = r.launch < unit.num_kernels && unit.kernel_names;
        summary.launches.push_back(known != launchByGrid.end()
                                       ? *known->second
                                       : LaunchRecord{grid, named ? unit.kernel_names[r.launch] : "", 0, {}});
      }
      if (r.launch < unit.num_kernels) summary.launches[index->second].unitKernels.emplace(unsigned(u), r.launch);
      r.launch = index->second;
      r.unit = static_cast<unsigned char>(u);
      r.element = kTraceNoElement;
      r.field = 0;
      if (unit.site_info && r.site < unit.num_sites) {
        const RelayoutSiteInfo& site = unit.site_info[r.site];
        r.field = static_cast<unsigned char>(std::min(site.field, 255u));
        const uint64_t elementAddr = r.addr - site.offset;
        if (const uint64_t base = allocations.baseOf(elementAddr); base && site.struct_size)
          r.element = (elementAddr - base) / site.struct_size;
      }
      TraceRecord& record = out.emplace_back();
      std::memcpy(&record, &r, sizeof r);
    }
  }
  summary.records = total;
  std::string error;
  auto file = TraceFileWriter::create(
      path, makeTraceHeader(summary.blockPeriod, summary.launchesPerKernel, summary.capacity, summary.dropped), error);
  if (!file) return error;
  file->append(out.data(), out.size());
  return file->finish();
}

}  // namespace relayout::rt
