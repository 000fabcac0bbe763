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
#include <memory>
#include <string>
#include <unordered_map>

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
  repeats += o.repeats * scale;
  ownIndex += o.ownIndex * scale;
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

std::string unqualifiedName(const std::string& name) {
  int depth = 0;
  for (size_t i = name.size(); i-- > 1;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (depth == 0 && name[i] == ':' && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

bool sameKernel(const std::string& siteMapName, const std::string& traceName) {
  return siteMapName == traceName || unqualifiedName(siteMapName) == unqualifiedName(traceName);
}

namespace {

constexpr unsigned kSectorShift = 5, kLineShift = 7;
constexpr unsigned kTagShift = 48;
constexpr uint64_t kIndexMask = (uint64_t(1) << kTagShift) - 1;
constexpr uint64_t kEmpty = ~uint64_t(0);
constexpr size_t kWarpSlots = 4096;

// The candidate layouts of one struct, as core/LayoutMapping.h stores them.
struct StructMappings {
  LayoutMapping layouts[kModelLayouts];
  bool clustered = false;  // the struct has a clustered candidate
};

StructMappings mapStruct(const StructLayoutModel& m) {
  StructMappings out;
  std::vector<MappedField> fields = mappedFields(m.info);
  out.layouts[size_t(ModelLayout::AoS)] = LayoutMapping::aos(fields, m.info.size, m.info.align);
  out.layouts[size_t(ModelLayout::SoA)] = LayoutMapping::soa(fields);
  out.layouts[size_t(ModelLayout::AoSoA)] = LayoutMapping::aosoa(fields);
  out.layouts[size_t(ModelLayout::Clustered)] = LayoutMapping::clustered(fields, m.clusters);
  out.clustered = !m.clusters.empty();
  return out;
}

struct SiteModel {
  bool active = false;
  bool dynamic = false;       // member index known only at run time ("hist[]")
  bool clustered = false;     // the field has a place in the struct's clustered candidate
  uint8_t field = 0;
  uint64_t width = 1;         // bytes the lane touches
  uint64_t structSize = 0;
  uint64_t fieldOffset = 0, fieldSize = 0;
  uint64_t inField = 0;       // offset of the touched member in its field (static members)
  uint64_t transpose = 0;     // SoA stored transposed: rows of this many elements (StructLayoutModel)
  const LayoutMapping* mapping[kModelLayouts] = {};
  FieldPlacement place[kModelLayouts];
};

SiteModel modelSite(const SiteInfo& site, const StructLayoutModel& m, const StructMappings& mappings) {
  SiteModel sm;
  const StructInfo& s = m.info;
  auto fieldIt = std::find_if(s.fields.begin(), s.fields.end(), [&](const FieldInfo& f) { return f.name == site.field; });
  if (fieldIt == s.fields.end() || s.fields.size() > 256 || s.size == 0) return sm;
  const FieldInfo& f = *fieldIt;
  const size_t index = static_cast<size_t>(fieldIt - s.fields.begin());
  sm.active = true;
  sm.field = static_cast<uint8_t>(index);
  sm.dynamic = site.member.find("[]") != std::string::npos;
  sm.width = std::max(1u, site.size);
  sm.structSize = s.size;
  sm.fieldOffset = f.offset;
  sm.fieldSize = std::max(1u, f.size);
  sm.inField = site.offset >= f.offset ? site.offset - f.offset : 0;
  if (m.transpose <= kMaxReplayedTranspose) sm.transpose = m.transpose;
  for (size_t l = 0; l < kModelLayouts; ++l) {
    const FieldPlacement* p = mappings.layouts[l].place(index);
    if (l == size_t(ModelLayout::Clustered) && (!mappings.clustered || !p)) {
      sm.mapping[l] = &mappings.layouts[size_t(ModelLayout::AoS)];
      sm.place[l] = sm.place[size_t(ModelLayout::AoS)];
      continue;
    }
    sm.mapping[l] = &mappings.layouts[l];
    sm.place[l] = *p;
  }
  sm.clustered = sm.mapping[size_t(ModelLayout::Clustered)] == &mappings.layouts[size_t(ModelLayout::Clustered)];
  return sm;
}

struct RawCell {
  uint64_t warps = 0, lanes = 0, repeats = 0, ownIndex = 0;
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
  bool hit = false;
  for (unsigned w = 0; w < kWays; ++w) hit |= ways[w] == key;  // no early exit: vectorizes
  if (hit) return false;
  ways[cache.next[set]] = key;
  cache.next[set] = static_cast<uint8_t>((cache.next[set] + 1) % kWays);
  return true;
}

// A set of keys for one group and layout (open addressing, emptied by moving to a new stamp).
struct KeySet {
  static constexpr size_t kSlots = 2 * size_t(kTraceWarpSize) * kMaxSectorsPerLane;
  uint64_t keys[kSlots];
  uint32_t stamps[kSlots] = {};
  uint32_t now = 0;
  void clear() {
    if (++now == 0) std::memset(stamps, 0, sizeof stamps), now = 1;
  }
  bool insert(uint64_t key, size_t mask) {
    size_t h = ((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (stamps[h] == now) {
      if (keys[h] == key) return false;
      h = (h + 1) & mask;
    }
    stamps[h] = now, keys[h] = key;
    return true;
  }
};

inline uint64_t lineOf(uint64_t key) {
  uint64_t tag = key >> kTagShift, index = key & kIndexMask;
  return (tag << kTagShift) | (index >> (kLineShift - kSectorShift));
}

// Counts the distinct sectors and lines among keys[0, n), and the sectors missing from the
// warp's cache, which then holds them. Keys in order (stride-1 warps) are counted by comparing
// neighbours; others (gathers) through two small hash sets, cheaper than sorting 32 keys.
inline void countKeys(uint64_t* keys, size_t n, bool sorted, WarpCache& cache, uint64_t& sectors, uint64_t& lines,
                      uint64_t& traffic, KeySet& sectorSet, KeySet& lineSet) {
  if (!sorted) {
    size_t slots = 64;
    while (slots < 2 * n) slots *= 2;
    sectorSet.clear(), lineSet.clear();
    for (size_t i = 0; i < n; ++i) {
      uint64_t k = keys[i];
      if (!sectorSet.insert(k, slots - 1)) continue;
      ++sectors;
      if (lineSet.insert(lineOf(k), slots - 1)) ++lines;
      if (missInCache(cache, k, k & kIndexMask, k >> kTagShift)) ++traffic;
    }
    return;
  }
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

// One lane of the group being replayed.
struct Lane {
  uint64_t addr, element, inField, baseLow;
  uint64_t tag;  // 1 + the allocation's 7 hash bits << 8; the layout's region is added
  bool raw;      // in no known allocation
};

// The sector keys the lanes touch under layout L, in lane order; `sorted` says whether they came
// out in increasing order. Specialized per layout so the loop has no layout branches.
template <ModelLayout L>
inline size_t laneKeys(const SiteModel& sm, size_t size, const Lane* lanes, uint64_t* keys, bool& sorted) {
  const FieldPlacement& p = sm.place[size_t(L)];
  const LayoutMapping& mapping = *sm.mapping[size_t(L)];
  size_t n = 0;
  uint64_t prev = 0;
  for (size_t j = 0; j < size; ++j) {
    const Lane& lane = lanes[j];
    uint64_t tag, offset;
    if (lane.raw) [[unlikely]] {
      tag = 0, offset = lane.addr;  // the same address in every layout
    } else {
      uint64_t element = lane.element;
      if constexpr (L == ModelLayout::SoA)
        if (sm.transpose) element = (element % sm.transpose) * kTransposedRows + element / sm.transpose;
      const FieldAddress at = mapping.locate(p, element, lane.inField);
      tag = lane.tag + at.region;
      offset = at.offset;
      if constexpr (L == ModelLayout::AoS) offset += lane.baseLow;  // the allocation's own alignment
    }
    const uint64_t first = offset >> kSectorShift, last = (offset + sm.width - 1) >> kSectorShift;
    uint64_t key = (tag << kTagShift) | (first & kIndexMask);
    sorted &= n == 0 || key >= prev;
    keys[n++] = prev = key;
    if (last != first) [[unlikely]]
      for (uint64_t s = first + 1; s <= std::min(last, first + kMaxSectorsPerLane - 1); ++s) {
        key = (tag << kTagShift) | (s & kIndexMask);
        sorted &= key >= prev;
        keys[n++] = prev = key;
      }
  }
  return n;
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
  std::vector<StructMappings> mappings;
  for (const StructLayoutModel& m : structs) mappings.push_back(mapStruct(m));
  std::vector<SiteModel> sites;
  for (const ReplayUnit& unit : units) {
    result.firstSite.push_back(sites.size());
    limits.sitesPerUnit.push_back(unit.sites);
    for (uint32_t id = 0; id < unit.sites; ++id) {
      SiteModel sm;
      if (unit.map && id < unit.map->sites.size()) {
        const SiteInfo& site = unit.map->sites[id];
        // A field the compiled code never loads (SiteInfo::unread): its records fill no cache.
        for (size_t m = 0; m < structs.size() && !site.unread; ++m)
          if (structs[m].info.name == site.structName) sm = modelSite(site, structs[m], mappings[m]);
      }
      sites.push_back(sm);
    }
  }
  std::vector<RawCell> cells(sites.size() * kernelCount);
  // Per (warp, site): a hash of the elements its lanes touched last time, to count repeats.
  std::unordered_map<uint64_t, uint64_t> lastElements;
  std::vector<WarpSlot> warpSlots(kWarpSlots);
  std::vector<uint64_t> keys(size_t(kTraceWarpSize) * kMaxSectorsPerLane);
  auto sectorSet = std::make_unique<KeySet>(), lineSet = std::make_unique<KeySet>();

  llvm::ArrayRef<TraceRecord> records = trace.records();
  result.records = records.size();
  uint64_t problemOffset = 0;
  std::string problem;
  Lane lanes[kTraceWarpSize];
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
      Lane& lane = lanes[j];
      lane.addr = r.addr;
      lane.raw = r.element == kTraceNoElement;
      if (lane.raw) continue;
      lane.element = r.element;
      uint64_t elementStart = r.addr - r.element * sm.structSize;  // base + offset in the element
      uint64_t d = sm.inField;
      if (sm.dynamic) {
        // Allocations start on 256-byte boundaries (cudaMalloc): the offset in the field follows.
        d = (elementStart - sm.fieldOffset) & 255;
        if (d + sm.width > sm.fieldSize) d = sm.fieldSize >= sm.width ? sm.fieldSize - sm.width : 0;
      }
      uint64_t base = elementStart - sm.fieldOffset - d;
      lane.inField = d;
      lane.baseLow = base & 255;
      lane.tag = 1 + ((((base >> 8) * 0x9E3779B97F4A7C15ull) >> 57) << 8);  // 7 bits naming the allocation
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
    // One walk over the lanes: the hash of the elements they touched (repeats), and whether each
    // touched its own index, base + lane (ownIndex).
    uint64_t elements = 0xcbf29ce484222325ull;
    bool own = true;
    for (size_t j = 0; j < size; ++j) {
      elements = (elements ^ (group[j].element * 0x9E3779B97F4A7C15ull + group[j].lane + 1)) * 0x100000001b3ull;
      own &=
          group[j].element != kTraceNoElement && group[j].element - group[j].lane == group[0].element - group[0].lane;
    }
    uint64_t& last = lastElements[(owner * 0x9E3779B97F4A7C15ull) ^ (uint64_t(flat) << 1)];
    cell.repeats += last == elements;
    last = elements;
    cell.ownIndex += own;
    for (size_t l = 0; l < kModelLayouts; ++l) {
      if (l == size_t(ModelLayout::Clustered) && !sm.clustered) {
        // No clustered candidate: its numbers are AoS's.
        cell.sectors[l] = cell.sectors[0], cell.lines[l] = cell.lines[0], cell.traffic[l] = cell.traffic[0];
        continue;
      }
      size_t n = 0;
      bool sorted = true;
      switch (ModelLayout(l)) {
        case ModelLayout::AoS: n = laneKeys<ModelLayout::AoS>(sm, size, lanes, keys.data(), sorted); break;
        case ModelLayout::SoA: n = laneKeys<ModelLayout::SoA>(sm, size, lanes, keys.data(), sorted); break;
        case ModelLayout::AoSoA: n = laneKeys<ModelLayout::AoSoA>(sm, size, lanes, keys.data(), sorted); break;
        case ModelLayout::Clustered: n = laneKeys<ModelLayout::Clustered>(sm, size, lanes, keys.data(), sorted); break;
      }
      countKeys(keys.data(), n, sorted, slot.layouts[l], cell.sectors[l], cell.lines[l], cell.traffic[l], *sectorSet,
                *lineSet);
    }
    i += size;
  }

  result.cells.resize(cells.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    ModelCounts& out = result.cells[c];
    out.warps = double(cells[c].warps);
    out.lanes = double(cells[c].lanes);
    out.repeats = double(cells[c].repeats);
    out.ownIndex = double(cells[c].ownIndex);
    for (size_t l = 0; l < kModelLayouts; ++l) {
      out.sectors[l] = double(cells[c].sectors[l]);
      out.lines[l] = double(cells[c].lines[l]);
      out.traffic[l] = double(cells[c].traffic[l]);
    }
  }
  return result;
}

}  // namespace relayout
