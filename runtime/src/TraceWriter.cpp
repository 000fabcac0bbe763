// Writes the binary trace (docs/formats.md, "Trace"): the GPU's records completed with what only
// the host knows — which launch a grid id was, which allocation and element an address falls in.
#include "relayout/rt_host.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>

namespace relayout::rt {
namespace {

static_assert(sizeof(RelayoutTraceRecord) == 32, "the trace format has 32-byte records");
static_assert(offsetof(RelayoutTraceRecord, launch) == 16 && offsetof(RelayoutTraceRecord, site) == 24 &&
                  offsetof(RelayoutTraceRecord, unit) == 28 && offsetof(RelayoutTraceRecord, group) == 31,
              "RelayoutTraceRecord must match the documented record layout");
constexpr size_t kHeaderBytes = 64;
constexpr unsigned long long kNoElement = ~0ull;

template <class T>
void put(std::string& out, size_t offset, T value) {
  std::memcpy(&out[offset], &value, sizeof value);  // x86-64 and the GPU are little-endian
}

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
  std::string out(kHeaderBytes + total * sizeof(RelayoutTraceRecord), '\0');
  size_t at = kHeaderBytes;
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
      r.element = kNoElement;
      r.field = 0;
      if (unit.site_info && r.site < unit.num_sites) {
        const RelayoutSiteInfo& site = unit.site_info[r.site];
        r.field = static_cast<unsigned char>(std::min(site.field, 255u));
        const uint64_t elementAddr = r.addr - site.offset;
        if (const uint64_t base = allocations.baseOf(elementAddr); base && site.struct_size)
          r.element = (elementAddr - base) / site.struct_size;
      }
      std::memcpy(&out[at], &r, sizeof r);
      at += sizeof r;
    }
  }
  summary.records = total;
  std::memcpy(&out[0], "RLTRACE", 8);  // with its terminating zero: 8 bytes
  put<uint32_t>(out, 8, 1);
  put<uint32_t>(out, 12, sizeof(RelayoutTraceRecord));
  put<uint64_t>(out, 16, summary.records);
  put<uint64_t>(out, 24, summary.dropped);
  put<uint32_t>(out, 32, summary.blockPeriod);
  put<uint32_t>(out, 36, summary.launchesPerKernel);
  put<uint64_t>(out, 40, summary.capacity);
  return writeFileAtomically(path, out);
}

}  // namespace relayout::rt
