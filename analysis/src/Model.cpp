// The trace replay of model mode (Model.h; docs/analysis.md, "Model mode"). One pass over the
// records; per-site placement of the touched member under each layout is computed up front, so
// the loop over records only multiplies, adds and counts.
#include "relayout/analysis/Model.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

namespace relayout {

const char* toString(ModelLayout layout) {
  switch (layout) {
    case ModelLayout::AoS: return "aos";
    case ModelLayout::SoA: return "soa";
    case ModelLayout::AoSoA: return "aosoa";
    case ModelLayout::Clustered: return "clustered";
  }
  return "aos";
}

void ModelCounts::add(const ModelCounts& o, double scale) {
  warps += o.warps * scale;
  lanes += o.lanes * scale;
  for (size_t l = 0; l < kModelLayouts; ++l) {
    sectors[l] += o.sectors[l] * scale;
    lines[l] += o.lines[l] * scale;
    traffic[l] += o.traffic[l] * scale;
  }
}

std::string kernelNameFromDemangled(const std::string& demangled) {
  std::string name = demangled;
  // Drop the parameter list: the first '(' outside template arguments.
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) {
      name.resize(i);
      break;
    }
  }
  // Drop a return type ("void k<int>"): the last space outside template arguments.
  depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (name[i] == ' ' && depth == 0) {
      name = name.substr(i + 1);
      break;
    }
  }
  return name;
}

static std::string unqualified(const std::string& name) {
  int depth = 0;
  for (size_t i = name.size(); i-- > 1;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (depth == 0 && name[i] == ':' && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

bool sameKernel(const std::string& siteMapName, const std::string& traceName) {
  return siteMapName == traceName || unqualified(siteMapName) == unqualified(traceName);
}

namespace {

constexpr unsigned kSectorShift = 5, kLineShift = 7;
constexpr unsigned kTagShift = 48;
constexpr uint64_t kIndexMask = (uint64_t(1) << kTagShift) - 1;
constexpr uint64_t kEmpty = ~uint64_t(0);
constexpr size_t kWarpSlots = 4096;

// Where a field's bytes start under one layout: element e's field is at e * stride + offset
// within the array (region) of cluster `region`.
struct Place {
  uint64_t stride = 0;
  uint64_t offset = 0;
  uint16_t region = 0;
};

struct SiteModel {
  bool active = false;
  bool dynamic = false;       // member index known only at run time ("hist[]")
  bool clustered = false;     // the struct has a clustered candidate
  uint8_t field = 0;
  uint64_t width = 1;         // bytes the lane touches
  uint64_t structSize = 0;
  uint64_t fieldOffset = 0, fieldSize = 0;
  uint64_t inField = 0;       // offset of the touched member in its field (static members)
  Place place[kModelLayouts];
  uint64_t tileBytes = 0;     // AoSoA: bytes of one tile of kAoSoATile elements
};

// Sizes of an __align__(16) sub-struct of these fields (AccessTree's rule: one field stays a plain
// array of itself) and the offset of each field in it, fields in declaration order.
uint64_t layOutCluster(const StructInfo& s, const std::vector<std::string>& names, std::map<std::string, uint64_t>& at) {
  uint64_t offset = 0, maxAlign = 1;
  for (const FieldInfo& f : s.fields) {
    if (std::find(names.begin(), names.end(), f.name) == names.end()) continue;
    uint64_t align = std::max(1u, f.align);
    offset = (offset + align - 1) / align * align;
    at[f.name] = offset;
    offset += f.size;
    maxAlign = std::max(maxAlign, align);
  }
  uint64_t structAlign = names.size() == 1 ? maxAlign : std::max<uint64_t>(16, maxAlign);
  return std::max<uint64_t>(1, (offset + structAlign - 1) / structAlign * structAlign);
}

SiteModel modelSite(const SiteInfo& site, const StructLayoutModel& m) {
  SiteModel sm;
  const StructInfo& s = m.info;
  auto fieldIt = std::find_if(s.fields.begin(), s.fields.end(), [&](const FieldInfo& f) { return f.name == site.field; });
  if (fieldIt == s.fields.end() || s.fields.size() > 256 || s.size == 0) return sm;
  const FieldInfo& f = *fieldIt;
  sm.active = true;
  sm.field = static_cast<uint8_t>(fieldIt - s.fields.begin());
  sm.dynamic = site.member.find("[]") != std::string::npos;
  sm.width = std::max(1u, site.size);
  sm.structSize = s.size;
  sm.fieldOffset = f.offset;
  sm.fieldSize = std::max(1u, f.size);
  sm.inField = site.offset >= f.offset ? site.offset - f.offset : 0;
  sm.place[size_t(ModelLayout::AoS)] = {s.size, f.offset, 0};
  sm.place[size_t(ModelLayout::SoA)] = {sm.fieldSize, 0, sm.field};
  // AoSoA: a tile holds kAoSoATile elements of each field in turn (each run aligned to its field).
  uint64_t tile = 0;
  for (const FieldInfo& g : s.fields) {
    uint64_t align = std::max(1u, g.align);
    tile = (tile + align - 1) / align * align;
    if (&g == &f) sm.place[size_t(ModelLayout::AoSoA)] = {std::max(1u, g.size), tile, 0};
    tile += uint64_t(kAoSoATile) * std::max(1u, g.size);
  }
  uint64_t maxAlign = 1;
  for (const FieldInfo& g : s.fields) maxAlign = std::max<uint64_t>(maxAlign, std::max(1u, g.align));
  sm.tileBytes = (tile + maxAlign - 1) / maxAlign * maxAlign;
  sm.place[size_t(ModelLayout::Clustered)] = sm.place[size_t(ModelLayout::AoS)];
  for (size_t c = 0; c < m.clusters.size() && c < 256; ++c) {
    if (std::find(m.clusters[c].begin(), m.clusters[c].end(), f.name) == m.clusters[c].end()) continue;
    std::map<std::string, uint64_t> at;
    uint64_t bytes = layOutCluster(s, m.clusters[c], at);
    sm.place[size_t(ModelLayout::Clustered)] = {bytes, at[f.name], static_cast<uint16_t>(c)};
    sm.clustered = true;
  }
  return sm;
}

struct RawCell {
  uint64_t warps = 0, lanes = 0;
  uint64_t sectors[kModelLayouts] = {}, lines[kModelLayouts] = {}, traffic[kModelLayouts] = {};
};

// A warp's recent sectors, per layout: kWarpCacheSectors keys in sets of kWays (consecutive
// sectors fall in consecutive sets), first in first out within a set.
constexpr unsigned kWays = 8, kSets = kWarpCacheSectors / kWays;
struct WarpCache {
  uint64_t keys[kSets][kWays];
  uint8_t next[kSets];
};
struct WarpSlot {
  uint64_t owner = 0;  // (launch << 32 | warp) + 1; 0 = free
  WarpCache layouts[kModelLayouts];
};

// Whether the warp touched `key` recently; remembers it if not.
inline bool missInCache(WarpCache& cache, uint64_t key, uint64_t index, uint64_t tag) {
  const size_t set = (index + tag * 0x9E37u) & (kSets - 1);
  uint64_t* ways = cache.keys[set];
  for (unsigned w = 0; w < kWays; ++w)
    if (ways[w] == key) return false;
  ways[cache.next[set]] = key;
  cache.next[set] = static_cast<uint8_t>((cache.next[set] + 1) % kWays);
  return true;
}

// Counts the distinct sectors and lines among keys[0, n) (sorted here when not already), and the
// sectors missing from the warp's cache, which then holds them.
inline void countKeys(uint64_t* keys, size_t n, bool sorted, WarpCache& cache, uint64_t& sectors, uint64_t& lines,
                      uint64_t& traffic) {
  if (!sorted) std::sort(keys, keys + n);
  uint64_t prevSector = kEmpty, prevLine = kEmpty;
  for (size_t i = 0; i < n; ++i) {
    uint64_t k = keys[i];
    if (k == prevSector) continue;
    prevSector = k;
    ++sectors;
    uint64_t tag = k >> kTagShift, index = k & kIndexMask;
    uint64_t line = (tag << kTagShift) | (index >> (kLineShift - kSectorShift));
    if (line != prevLine) ++lines, prevLine = line;
    if (missInCache(cache, k, index, tag)) ++traffic;
  }
}

}  // namespace

llvm::Expected<ReplayResult> replayTrace(const Trace& trace, const std::vector<ReplayUnit>& units,
                                         const std::vector<StructLayoutModel>& structs,
                                         const std::vector<std::string>& launchKernels) {
  ReplayResult result;
  // Kernels: one index per distinct name.
  std::vector<uint32_t> kernelOfLaunch;
  for (const std::string& name : launchKernels) {
    auto it = std::find(result.kernels.begin(), result.kernels.end(), name);
    kernelOfLaunch.push_back(static_cast<uint32_t>(it - result.kernels.begin()));
    if (it == result.kernels.end()) result.kernels.push_back(name);
  }
  if (result.kernels.empty()) result.kernels.push_back("?");
  const size_t kernelCount = result.kernels.size();

  TraceLimits limits;
  limits.launches = launchKernels.size();
  std::vector<SiteModel> sites;
  for (const ReplayUnit& unit : units) {
    result.firstSite.push_back(sites.size());
    limits.sitesPerUnit.push_back(unit.sites);
    for (uint32_t id = 0; id < unit.sites; ++id) {
      SiteModel sm;
      if (unit.map && id < unit.map->sites.size()) {
        const SiteInfo& site = unit.map->sites[id];
        for (const StructLayoutModel& m : structs)
          if (m.info.name == site.structName) sm = modelSite(site, m);
      }
      sites.push_back(sm);
    }
  }
  std::vector<RawCell> cells(sites.size() * kernelCount);
  std::vector<WarpSlot> warpSlots(kWarpSlots);
  std::vector<uint64_t> keys(size_t(kTraceWarpSize) * kMaxSectorsPerLane);

  llvm::ArrayRef<TraceRecord> records = trace.records();
  result.records = records.size();
  uint64_t problemOffset = 0;
  std::string problem;
  // Per lane of the group: element, base-derived tag bits and offset in the field.
  uint64_t element[kTraceWarpSize], tagBits[kTraceWarpSize], inField[kTraceWarpSize], baseLow[kTraceWarpSize];
  bool raw[kTraceWarpSize];
  for (size_t i = 0; i < records.size();) {
    const size_t size = checkTraceGroup(records, i, limits, problemOffset, problem);
    if (size == 0) return traceError(trace.path(), problemOffset, problem);
    const TraceRecord* group = records.data() + i;
    const size_t flat = result.firstSite[group->unit] + group->site;
    const SiteModel& sm = sites[flat];
    ++result.groups;
    if (!sm.active) {
      result.skipped += size;
      i += size;
      continue;
    }
    for (size_t j = 0; j < size; ++j) {
      const TraceRecord& r = group[j];
      if (r.field != sm.field)
        return traceError(trace.path(), traceRecordOffset(i + j) + offsetof(TraceRecord, field),
                          fmt::format("record {}: field {} disagrees with site {} of unit {}, whose field is {} "
                                      "(a trace of other sources?)",
                                      i + j, r.field, r.site, r.unit, sm.field));
      raw[j] = r.element == kTraceNoElement;
      if (raw[j]) continue;
      element[j] = r.element;
      uint64_t elementStart = r.addr - r.element * sm.structSize;  // base + offset in the element
      uint64_t d = sm.inField;
      if (sm.dynamic) {
        // Allocations start on 256-byte boundaries (cudaMalloc): the offset in the field follows.
        d = (elementStart - sm.fieldOffset) & 255;
        if (d + sm.width > sm.fieldSize) d = sm.fieldSize >= sm.width ? sm.fieldSize - sm.width : 0;
      }
      uint64_t base = elementStart - sm.fieldOffset - d;
      inField[j] = d;
      baseLow[j] = base & 255;
      tagBits[j] = (((base >> 8) * 0x9E3779B97F4A7C15ull) >> 57) << 8;  // 7 bits naming the allocation
    }
    const uint64_t owner = ((uint64_t(group->launch) << 32) | group->warp) + 1;
    WarpSlot& slot = warpSlots[(owner * 0x9E3779B97F4A7C15ull) >> 52];
    if (slot.owner != owner) {
      slot.owner = owner;
      for (WarpCache& c : slot.layouts) {
        std::memset(c.keys, 0xFF, sizeof c.keys);
        std::memset(c.next, 0, sizeof c.next);
      }
    }
    RawCell& cell = cells[flat * kernelCount + kernelOfLaunch[group->launch]];
    ++cell.warps;
    cell.lanes += size;
    for (size_t l = 0; l < kModelLayouts; ++l) {
      if (l == size_t(ModelLayout::Clustered) && !sm.clustered) {
        // No clustered candidate: its numbers are AoS's.
        cell.sectors[l] = cell.sectors[0], cell.lines[l] = cell.lines[0], cell.traffic[l] = cell.traffic[0];
        continue;
      }
      const Place& p = sm.place[l];
      size_t n = 0;
      bool sorted = true;
      for (size_t j = 0; j < size; ++j) {
        uint64_t tag, offset;
        if (raw[j]) {
          tag = 0, offset = group[j].addr;  // in no known allocation: the same address in every layout
        } else {
          tag = 1 + (tagBits[j] | p.region);
          uint64_t e = element[j];
          if (l == size_t(ModelLayout::AoSoA))
            offset = (e / kAoSoATile) * sm.tileBytes + p.offset + (e % kAoSoATile) * p.stride + inField[j];
          else
            offset = e * p.stride + p.offset + inField[j] + (l == size_t(ModelLayout::AoS) ? baseLow[j] : 0);
        }
        uint64_t first = offset >> kSectorShift;
        uint64_t last = std::min((offset + sm.width - 1) >> kSectorShift, first + kMaxSectorsPerLane - 1);
        for (uint64_t s = first; s <= last; ++s) {
          uint64_t key = (tag << kTagShift) | (s & kIndexMask);
          if (n > 0 && key < keys[n - 1]) sorted = false;
          keys[n++] = key;
        }
      }
      countKeys(keys.data(), n, sorted, slot.layouts[l], cell.sectors[l], cell.lines[l], cell.traffic[l]);
    }
    i += size;
  }

  result.cells.resize(cells.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    ModelCounts& out = result.cells[c];
    out.warps = double(cells[c].warps);
    out.lanes = double(cells[c].lanes);
    for (size_t l = 0; l < kModelLayouts; ++l) {
      out.sectors[l] = double(cells[c].sectors[l]);
      out.lines[l] = double(cells[c].lines[l]);
      out.traffic[l] = double(cells[c].traffic[l]);
    }
  }
  return result;
}

}  // namespace relayout
