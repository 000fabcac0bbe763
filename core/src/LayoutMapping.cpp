#include "relayout/core/LayoutMapping.h"

#include <algorithm>
#include <bit>

namespace relayout {

namespace {

uint64_t roundUp(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

uint64_t alignOf(const MappedField& f) { return std::max<uint64_t>(1, f.align); }

// Values in an array field (the product of its extents); 0 for a field that is no array.
uint64_t valueCount(const MappedField& f) {
  if (f.extents.empty()) return 0;
  uint64_t count = 1;
  for (uint64_t e : f.extents) count *= e;
  return count;
}

// Bytes of one value of an array field that can be split by index, else 0.
uint64_t splitRunBytes(const MappedField& f) {
  const uint64_t count = valueCount(f);
  return count && f.size % count == 0 ? f.size / count : 0;
}

}  // namespace

uint64_t clusterAlign(uint64_t bytes, uint64_t fieldAlign) {
  return std::max(fieldAlign, std::min(kClusterAlign, std::bit_ceil(std::max<uint64_t>(1, bytes))));
}

std::vector<MappedField> mappedFields(const StructInfo& s) {
  std::vector<MappedField> out;
  for (const FieldInfo& f : s.fields) out.push_back({f.name, f.size, f.align, f.offset, f.extents});
  return out;
}

LayoutMapping LayoutMapping::aos(std::vector<MappedField> fields, uint64_t structSize, uint64_t structAlign) {
  LayoutMapping m;
  m.kind_ = MappingKind::AoS;
  m.fields_ = std::move(fields);
  ClusterStorage c;
  c.bytes = structSize;
  c.align = std::max<uint64_t>(1, structAlign);
  for (size_t i = 0; i < m.fields_.size(); ++i) {
    c.fields.push_back(i);
    c.offsets.push_back(m.fields_[i].offset);
    c.dataBytes += m.fields_[i].size;
    m.places_.push_back({0, 0, m.fields_[i].offset, std::max<uint64_t>(1, structSize), 0, false});
  }
  c.alignedStruct = false;
  m.clusters_.push_back(std::move(c));
  m.placed_.assign(m.fields_.size(), true);
  m.regions_ = 1;
  return m;
}

LayoutMapping LayoutMapping::soa(std::vector<MappedField> fields, const std::set<std::string>& keptWhole) {
  std::vector<std::vector<size_t>> clusters;
  for (size_t i = 0; i < fields.size(); ++i) clusters.push_back({i});
  return partitioned(MappingKind::SoA, std::move(fields), clusters, keptWhole);
}

LayoutMapping LayoutMapping::aosoa(std::vector<MappedField> fields) {
  std::vector<std::vector<size_t>> clusters;
  for (size_t i = 0; i < fields.size(); ++i) clusters.push_back({i});
  LayoutMapping m = partitioned(MappingKind::AoSoA, std::move(fields), clusters, {});
  m.tile();
  return m;
}

LayoutMapping LayoutMapping::clustered(std::vector<MappedField> fields,
                                       const std::vector<std::vector<std::string>>& clusters,
                                       const std::set<std::string>& keptWhole) {
  std::vector<std::vector<size_t>> indexes;
  for (const std::vector<std::string>& names : clusters) {
    std::vector<size_t> members;
    for (const std::string& name : names)
      for (size_t i = 0; i < fields.size(); ++i)
        if (fields[i].name == name) members.push_back(i);
    if (!members.empty()) indexes.push_back(std::move(members));
  }
  return partitioned(MappingKind::Clustered, std::move(fields), indexes, keptWhole);
}

LayoutMapping LayoutMapping::partitioned(MappingKind kind, std::vector<MappedField> fields,
                                         const std::vector<std::vector<size_t>>& clusters,
                                         const std::set<std::string>& keptWhole) {
  LayoutMapping m;
  m.kind_ = kind;
  m.fields_ = std::move(fields);
  m.places_.resize(m.fields_.size());
  m.placed_.assign(m.fields_.size(), false);
  for (size_t index = 0; index < clusters.size(); ++index) {
    ClusterStorage c;
    uint64_t offset = 0, maxAlign = 1;
    for (size_t i : clusters[index]) {
      const MappedField& f = m.fields_[i];
      offset = roundUp(offset, alignOf(f));
      c.fields.push_back(i);
      c.offsets.push_back(offset);
      offset += f.size;
      maxAlign = std::max(maxAlign, alignOf(f));
      c.dataBytes += f.size;
    }
    // Alignment gains nothing without a second member to load with the first: a lone field
    // stays a plain array of itself.
    c.alignedStruct = c.fields.size() > 1;
    c.align = c.alignedStruct ? clusterAlign(offset, maxAlign) : maxAlign;
    c.bytes = roundUp(offset, c.align);
    if (!c.alignedStruct && kind != MappingKind::AoSoA && !keptWhole.count(m.fields_[c.fields[0]].name))
      c.runBytes = splitRunBytes(m.fields_[c.fields[0]]);
    c.split = c.runBytes != 0;
    c.runs = c.split ? valueCount(m.fields_[c.fields[0]]) : 1;
    c.firstRegion = m.regions_;
    m.regions_ += static_cast<uint32_t>(c.runs);
    for (size_t k = 0; k < c.fields.size(); ++k) {
      FieldPlacement& p = m.places_[c.fields[k]];
      p.cluster = index;
      p.region = c.firstRegion;
      p.offset = c.split ? 0 : c.offsets[k];
      p.stride = c.split ? c.runBytes : std::max<uint64_t>(1, c.bytes);
      p.runBytes = c.runBytes;
      m.placed_[c.fields[k]] = true;
    }
    m.clusters_.push_back(std::move(c));
  }
  return m;
}

// AoSoA: one region of tiles; each cluster's run of kAoSoATile elements in turn, aligned to it.
void LayoutMapping::tile() {
  uint64_t at = 0, maxAlign = 1;
  for (ClusterStorage& c : clusters_) {
    const MappedField& f = fields_[c.fields[0]];
    at = roundUp(at, alignOf(f));
    c.tileOffset = at;
    at += uint64_t(kAoSoATile) * std::max<uint64_t>(1, f.size);
    maxAlign = std::max(maxAlign, alignOf(f));
    FieldPlacement& p = places_[c.fields[0]];
    p = {p.cluster, 0, c.tileOffset, std::max<uint64_t>(1, f.size), 0, true};
  }
  tileBytes_ = roundUp(at, maxAlign);
  regions_ = 1;
}

const FieldPlacement* LayoutMapping::place(size_t field) const {
  return field < places_.size() && placed_[field] ? &places_[field] : nullptr;
}

const FieldPlacement* LayoutMapping::place(const std::string& field) const {
  for (size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].name == field) return place(i);
  return nullptr;
}

}  // namespace relayout
