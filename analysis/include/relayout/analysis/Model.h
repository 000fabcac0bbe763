// Model mode's traffic model: the recorded trace (core/Trace.h) replayed against candidate
// layouts of each struct — AoS as it is, SoA, AoSoA with 32-element tiles, and the clustered
// AoS that the field access tree proposes. Per warp-level execution (a group of records) it
// computes the address each lane would touch under each layout from the element index and the
// member's offset and size, and counts distinct 32-byte sectors and 128-byte lines, and the
// sectors the same warp had not touched in its recent accesses (docs/analysis.md, "Model mode").
#pragma once

#include "relayout/core/LayoutMapping.h"
#include "relayout/core/SiteMap.h"
#include "relayout/core/Trace.h"

#include <llvm/Support/Error.h>

#include <cstdint>
#include <string>
#include <vector>

namespace relayout {

// The layouts the model replays: those a LayoutMapping can place fields in.
using ModelLayout = MappingKind;
inline constexpr size_t kModelLayouts = 4;
inline constexpr ModelLayout kAllModelLayouts[kModelLayouts] = {ModelLayout::AoS, ModelLayout::SoA,
                                                                ModelLayout::AoSoA, ModelLayout::Clustered};
const char* toString(ModelLayout layout);  // aos, soa, aosoa, clustered

// Sectors each warp remembers per layout (8-way sets by sector address, first in first out): a
// sector the warp touched among its recent accesses is served by L1 and is not counted as
// traffic again. 128 sectors = 4 KB, the share of a 256 KB L1 of one of 64 resident warps.
inline constexpr unsigned kWarpCacheSectors = 128;
// A lane's access wider than this many sectors is counted as this many (bounded work per record).
inline constexpr unsigned kMaxSectorsPerLane = 32;

struct ModelCounts {
  double warps = 0;                      // warp-level executions
  double lanes = 0;                      // thread-level executions
  double sectors[kModelLayouts] = {};    // distinct 32-byte sectors per execution, summed (requested)
  double lines[kModelLayouts] = {};      // distinct 128-byte lines per execution, summed
  double traffic[kModelLayouts] = {};    // requested sectors the warp had not touched recently
  // Warp-level executions whose lanes touched the same elements as the same warp's previous
  // execution of the site: a loop-invariant access, which nvcc may keep in a register.
  double repeats = 0;
  // Warp-level executions whose lanes touched elements at their own index (element - lane the
  // same for every lane: `p[base + lane]`), as against a gather through an index array.
  double ownIndex = 0;
  void add(const ModelCounts& other, double scale = 1.0);
  double of(const double (&values)[kModelLayouts], ModelLayout layout) const {
    return values[static_cast<size_t>(layout)];
  }
};

// The candidate layouts of one struct; where each field lies under each is core's layout mapping
// (core/LayoutMapping.h), the rewriter's own.
struct StructLayoutModel {
  StructInfo info;
  // The clustered candidate: the field access tree's sub-structs (field names, declaration
  // order), each aligned (clusterAlign) when it has two or more fields; empty = no clustered candidate
  // (its numbers then equal AoS's).
  std::vector<std::vector<std::string>> clusters;
  // Nonzero: the SoA candidate is stored transposed, as a flattened 2-D array of rows of this many
  // elements (StructPlan::transpose): element r * W + k at k * rows + r. The other layouts are not.
  unsigned transpose = 0;
};

// The widest row a transposed SoA is replayed for: columns kTransposedRows elements apart keep the
// replay's sector numbers within 48 bits for fields up to 16 bytes. Rows past it are not priced.
inline constexpr unsigned kMaxReplayedTranspose = 4096;
// Elements per column in the replay of a transposed SoA: more than any traced array has rows, so
// that columns never share a sector (the real layout packs them; their one shared sector at each
// column's end is noise).
inline constexpr uint64_t kTransposedRows = uint64_t(1) << 30;

// One profile unit as the replay sees it.
struct ReplayUnit {
  const SiteMap* map = nullptr;  // null: the unit's records are checked and skipped
  uint32_t sites = 0;            // the unit's site count in the profile
};

struct ReplayResult {
  std::vector<std::string> kernels;  // the distinct kernel names of the traced launches
  std::vector<size_t> firstSite;     // per unit: flat index of its site 0
  std::vector<ModelCounts> cells;    // [(firstSite[unit] + site) * kernels.size() + kernel]
  uint64_t records = 0, groups = 0;
  uint64_t skipped = 0;  // records of units without a site map, of structs not modelled, of unread sites

  const ModelCounts& at(size_t unit, size_t site, size_t kernel) const {
    return cells[(firstSite[unit] + site) * kernels.size() + kernel];
  }
};

// Replays every record once (one pass, flat arrays, no allocation per record). `launchKernels`
// names the kernel of each traced launch (the profile's trace.launches[].kernel). Records are
// checked as they are read (core/Trace.h, checkTraceGroup) and a record whose field disagrees
// with its site is refused: errors name the trace and the byte offset.
llvm::Expected<ReplayResult> replayTrace(const Trace& trace, const std::vector<ReplayUnit>& units,
                                         const std::vector<StructLayoutModel>& structs,
                                         const std::vector<std::string>& launchKernels);

// "void ns::k<float>(P*, int)" -> "ns::k<float>": CUPTI's demangled name as the site map names kernels.
std::string kernelNameFromDemangled(const std::string& demangled);
// Whether a site map kernel name and a (normalized) trace kernel name are the same kernel: equal,
// or equal once namespaces are dropped from both.
bool sameKernel(const std::string& siteMapName, const std::string& traceName);

// "ns::S<a::b>" -> "S<a::b>": the name without its scopes (template arguments kept whole).
std::string unqualifiedName(const std::string& name);

}  // namespace relayout
