// The layout plan: per struct type, the chosen partition of its fields into clusters.
// AoS is one cluster with every field, SoA is one cluster per field; anything in between is the
// clustered form (each cluster a struct aligned to its size, LayoutMapping.h). Aligned is AoS
// with the record aligned to its size (8 or 16 bytes), so that nvcc may move it as one vector.
// Format: docs/formats.md ("relayout-plan", version 1).
#pragma once

#include "relayout/core/SiteMap.h"

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relayout {

enum class Layout { AoS, SoA, Clustered, Aligned };
inline constexpr Layout kLayouts[] = {Layout::AoS, Layout::SoA, Layout::Clustered, Layout::Aligned};
const char* toString(Layout layout);
// The layout a user named on the command line: "aos", "soa", "clustered" or "aligned", in any case.
std::optional<Layout> parseLayoutName(std::string_view name);
// Whether the layout moves fields into arrays of their own (SoA, clustered): the rewriter then
// gives the struct a device layout. AoS and aligned keep the record as it is.
inline bool splitsFields(Layout layout) { return layout == Layout::SoA || layout == Layout::Clustered; }
// The widths a record can be aligned to (Layout::Aligned): those of one vector access that moves
// more than one field, 8 and 16 bytes.
inline bool isVectorWidth(uint64_t bytes) { return bytes == 8 || bytes == 16; }
// Whether aligning a record of this size and alignment to its size (Layout::Aligned without an
// explicit width) changes it: a vector width, aligned to less.
inline bool alignableToSize(uint64_t size, uint64_t align) { return isVectorWidth(size) && align < size; }

struct Cluster {
  std::string name;                 // used for the sub-struct's name in the clustered form
  std::vector<std::string> fields;  // in declaration order
  // Clustered layout only: bytes the sub-struct's alignment adds (its sizeof minus its fields'
  // sizes). Informational: the rewriter's alignas is what pads.
  unsigned paddingBytes = 0;
};

struct FunctionHash {
  std::string name;
  std::string hash;  // the site map's functions[].hash
};

struct PlanSource {
  std::string path;
  std::string sha256;
  // The functions with sites when the plan was made, with their token hashes: the plan still
  // fits the source after edits that leave them (and the structs' fields) as they were. Empty in
  // plans of site maps without function hashes.
  std::vector<FunctionHash> functions;
};

struct StructPlan {
  std::string name;
  std::vector<std::string> fields;  // every field, in declaration order (may be empty in hand-made plans)
  Layout layout = Layout::AoS;
  std::vector<Cluster> clusters;  // empty for AoS and aligned
  double score = 0;               // the deciding sum (paper mode: > 0 means AoS)
  std::string reason;             // one line a person can read
  nlohmann::json details;         // deciding sites and per-layout numbers, for reports
  // Aligned only: the record aligned to this many bytes (8 or 16, a divisor of its size); 0: to its
  // size, which must then be 8 or 16. So that nvcc may load and store its fields together as one
  // vector access; the record's size and its fields' offsets do not change.
  unsigned align = 0;
  // SoA only: the array is a flattened 2-D array of rows of `transpose` elements (entry (row, k) at
  // row * transpose + k, an ELL matrix), stored transposed: entry (row, k) at k * rows + row, so
  // that threads reading one row each read consecutive entries. 0: not transposed.
  unsigned transpose = 0;
};

// What applying a plan did with one struct's layout: applied, or why not (one line per use or
// shape that kept it), for the terminal and the reports.
struct RewriteOutcome {
  bool applied = false;
  std::vector<std::string> reasons;
};

struct Plan {
  static constexpr const char* kFormat = "relayout-plan";
  static constexpr int kVersion = 1;

  std::string mode;  // "paper", "model" (the trace replayed), or "forced" when --layout overrode the analysis
  std::vector<PlanSource> sources;
  std::vector<StructPlan> structs;

  const StructPlan* findStruct(const std::string& name) const;
  nlohmann::json toJson() const;
  static llvm::Expected<Plan> fromJson(const nlohmann::json& doc, llvm::StringRef path);
  static llvm::Expected<Plan> load(llvm::StringRef path);
};

// Whether `plan` still fits a source that changed since the plan was made, by the source's
// current site map (which must describe the source as it is now): the plan's source of the same
// path recorded function hashes, each of those functions is still there with the same hash, and
// each planned struct of the site map has the plan's fields. The error names planPath and lists
// what changed.
llvm::Error checkPlanFitsSiteMap(const Plan& plan, llvm::StringRef planPath, const SiteMap& current);

// The SoA partition of a struct's fields: one cluster per field, named after it.
std::vector<Cluster> soaClusters(const std::vector<std::string>& fieldNames);

}  // namespace relayout
