// The layout plan: per struct type, the chosen partition of its fields into clusters.
// AoS is one cluster with every field, SoA is one cluster per field; anything in between is the
// clustered form (each cluster an __align__(16) struct). Format: docs/formats.md
// ("relayout-plan", version 1).
#pragma once

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace relayout {

enum class Layout { AoS, SoA, Clustered };
const char* toString(Layout layout);

struct Cluster {
  std::string name;                 // used for the sub-struct's name in the clustered form
  std::vector<std::string> fields;  // in declaration order
  // Clustered layout only: bytes __align__(16) adds to the sub-struct (its sizeof minus its
  // fields' sizes). Informational: the rewriter's __align__(16) is what pads.
  unsigned paddingBytes = 0;
};

struct PlanSource {
  std::string path;
  std::string sha256;
};

struct StructPlan {
  std::string name;
  std::vector<std::string> fields;  // every field, in declaration order (may be empty in hand-made plans)
  Layout layout = Layout::AoS;
  std::vector<Cluster> clusters;  // empty for AoS
  double score = 0;               // the deciding sum (paper mode: > 0 means AoS)
  std::string reason;             // one line a person can read
  nlohmann::json details;         // deciding sites and per-layout numbers, for reports
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

// The SoA partition of a struct's fields: one cluster per field, named after it.
std::vector<Cluster> soaClusters(const std::vector<std::string>& fieldNames);

}  // namespace relayout
