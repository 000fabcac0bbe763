// The one definition of where a struct's fields live under each layout relayout knows (LLAMA's
// vocabulary: a record of fields, a partition of them into clusters, a mapping from (element,
// field) to an array and a byte offset in it). The analysis model replays accesses against it,
// the field access tree sizes its clusters with it, and the rewriter stores device arrays by it.
//
// A partition of the fields into clusters defines the storage: one array (region) per cluster.
//  - AoS: one cluster, the struct as declared (its own offsets and sizeof).
//  - Clustered: the plan's clusters. A cluster of two or more fields is a struct of them (fields
//    in cluster order, each at its natural alignment) aligned to its size rounded up to a power
//    of two, at most 16 bytes (clusterAlign); a one-field cluster is a plain array of that field.
//  - SoA: one field per cluster.
//  - AoSoA: the SoA partition with a tiled index: a tile holds kAoSoATile elements of each field
//    in turn (each field's run aligned to it); tiles follow each other in one region.
// An array field alone in its cluster (SoA, or a one-field cluster) is split by index
// (variable-major): one run of n values per index of the field, each run its own region, unless
// the caller keeps it whole (the rewriter does when some use needs the field per element).
// Multi-field clusters and AoSoA tiles keep array fields whole.
#pragma once

#include "relayout/core/SiteMap.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace relayout {

// Elements per AoSoA tile: one warp's worth, so a stride-1 warp reads each field contiguously.
inline constexpr unsigned kAoSoATile = 32;
// The widest alignment a multi-field cluster's struct gets: a thread's widest load is 16 bytes.
inline constexpr uint64_t kClusterAlign = 16;

// The alignment of a multi-field cluster whose fields take `bytes` in cluster order (padding
// between them included) and whose widest field needs `fieldAlign`: its size rounded up to a
// power of two, at most kClusterAlign, so one load fetches the fields together and a small
// cluster is not padded (two floats: 8 bytes, one 64-bit load; at 16 they were half padding).
uint64_t clusterAlign(uint64_t bytes, uint64_t fieldAlign);

// The layouts a mapping can place the fields in; the trace model replays each of them
// (analysis/Model.h names this ModelLayout and indexes its per-layout arrays by it).
enum class MappingKind : uint8_t { AoS, SoA, AoSoA, Clustered };

// One field of the record, as the mapping needs it.
struct MappedField {
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  uint64_t offset = 0;            // in the declared struct (AoS only)
  std::vector<uint64_t> extents;  // an array field's extents, outermost first; empty otherwise
};

// The record of a site map struct.
std::vector<MappedField> mappedFields(const StructInfo& s);

// One cluster's storage: one array, or one per index for a split array field.
struct ClusterStorage {
  std::vector<size_t> fields;    // indexes into the record's fields, in cluster order
  std::vector<uint64_t> offsets; // each field's byte offset in the cluster's element
  uint64_t bytes = 0;            // sizeof one element: the struct (padding included) or the field
  uint64_t align = 1;
  uint64_t dataBytes = 0;        // the fields' own sizes
  uint64_t paddingBytes() const { return bytes - dataBytes; }
  bool alignedStruct = false;    // a struct of two or more fields, aligned by clusterAlign
  // Split by index: `runs` arrays of `runBytes` values (the field's innermost element).
  bool split = false;
  uint64_t runs = 1;
  uint64_t runBytes = 0;
  uint32_t firstRegion = 0;      // number of its (first) array; a split field's runs follow
  uint64_t tileOffset = 0;       // AoSoA: where its run of kAoSoATile elements starts in a tile
};

// Where one field's bytes lie: element e's byte `inField` of the field is in region
// `region` at e * stride + offset + inField (split: region + inField / runBytes at
// e * runBytes + inField % runBytes; AoSoA: tile e / kAoSoATile, see locate()).
struct FieldPlacement {
  size_t cluster = 0;
  uint32_t region = 0;
  uint64_t offset = 0;
  uint64_t stride = 1;
  uint64_t runBytes = 0;  // nonzero when split by index
  bool tiled = false;     // AoSoA
};

struct FieldAddress {
  uint32_t region = 0;
  uint64_t offset = 0;  // byte offset in the region
  bool operator==(const FieldAddress&) const = default;
};

class LayoutMapping {
 public:
  // The struct as declared: one region of `structSize`-byte elements.
  static LayoutMapping aos(std::vector<MappedField> fields, uint64_t structSize, uint64_t structAlign);
  // One field per cluster, in field order.
  static LayoutMapping soa(std::vector<MappedField> fields, const std::set<std::string>& keptWhole = {});
  static LayoutMapping aosoa(std::vector<MappedField> fields);
  // `clusters` names fields; a field in none has no placement, names of no field are ignored.
  static LayoutMapping clustered(std::vector<MappedField> fields, const std::vector<std::vector<std::string>>& clusters,
                                 const std::set<std::string>& keptWhole = {});

  MappingKind kind() const { return kind_; }
  const std::vector<MappedField>& fields() const { return fields_; }
  const std::vector<ClusterStorage>& clusters() const { return clusters_; }
  // Null for a field in no cluster (or no such field).
  const FieldPlacement* place(const std::string& field) const;
  const FieldPlacement* place(size_t field) const;
  uint32_t regions() const { return regions_; }
  uint64_t tileBytes() const { return tileBytes_; }  // AoSoA: bytes of one tile

  // The region and byte offset of byte `inField` of `field` in element `element`.
  FieldAddress locate(const FieldPlacement& p, uint64_t element, uint64_t inField) const {
    if (p.tiled)
      return {p.region, (element / kAoSoATile) * tileBytes_ + p.offset + (element % kAoSoATile) * p.stride + inField};
    if (p.runBytes)
      return {static_cast<uint32_t>(p.region + inField / p.runBytes), element * p.stride + inField % p.runBytes};
    return {p.region, element * p.stride + p.offset + inField};
  }

 private:
  static LayoutMapping partitioned(MappingKind kind, std::vector<MappedField> fields,
                                   const std::vector<std::vector<size_t>>& clusters, const std::set<std::string>& keptWhole);
  void tile();

  MappingKind kind_ = MappingKind::AoS;
  std::vector<MappedField> fields_;
  std::vector<ClusterStorage> clusters_;
  std::vector<FieldPlacement> places_;  // per field
  std::vector<bool> placed_;            // per field
  uint32_t regions_ = 0;
  uint64_t tileBytes_ = 0;
};

}  // namespace relayout
