// The field access tree of seed paper 001 (PAPER.md, section 6) and the clustering built on it:
// Kernel -> Loop (with its dynamic Count) -> Field. When the paper rule keeps AoS, the struct's
// fields are split into aligned sub-structs (core/LayoutMapping.h: clusterAlign), one per Loop node left after merging.
// Every point the paper leaves open is decided in docs/analysis.md ("Clustering").
#pragma once

#include "relayout/core/SiteMap.h"

#include <compare>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace relayout {

// A loop of a site map, or a function's code outside any loop (loop == nullopt: the paper's
// tree has no place for it, so relayout gives each function body a pseudo-loop).
struct LoopKey {
  std::string source;            // the site map's source path
  std::string function;          // the function holding the loop (a kernel or a device helper)
  std::optional<unsigned> loop;  // site-map loop id
  // The calling kernel, for a helper's loop whose counters the profile split per kernel
  // (units[].kernel_sites); empty: one node for all callers.
  std::string kernel;
  auto operator<=>(const LoopKey&) const = default;
};

// Measured dynamic execution counts per loop (the paper's kernelID/loopID counts), from the
// profile's units[].loops; loops missing here get a count derived from their sites' counters.
using LoopCounts = std::map<LoopKey, double>;

// One field access of a struct, as the tree builder needs it.
struct TreeSite {
  LoopKey key;
  std::string loopLabel;             // for reports: "stream.cu:12 for" or "body of kick"
  std::vector<std::string> kernels;  // kernels reaching the site's function (empty: the function itself)
  std::string field;
  double executions = 0;             // thread-level executions (the paper's count), sampling-scaled
};

struct LoopNode {
  std::string kernel;                // for a node merged across kernels: the first kernel
  std::string label;                 // the loops merged into it, comma-separated
  double count = 0;
  bool measured = false;             // count from LoopCounts, not derived from site counters
  std::vector<std::string> fields;   // in declaration order
};

struct KernelNode {
  std::string name;
  std::vector<LoopNode> loops;
};

struct FieldAccessTree {
  std::vector<KernelNode> kernels;  // in order of first appearance
};

// A sub-struct of the clustered layout.
struct FieldCluster {
  std::string name;                  // a C++ identifier, unique among the clusters and the fields
  std::vector<std::string> fields;   // declaration order
  unsigned dataBytes = 0;            // sizes of the fields with their natural alignment
  unsigned bytes = 0;                // sizeof the sub-struct (its alignment rounds up)
  unsigned paddingBytes = 0;         // bytes - dataBytes
  double count = 0;                  // Count of its Loop node (0: the never-accessed fields)
  std::string origin;                // the Loop node it came from, for reports
  std::string kernel;                // that node's kernel (names the sub-struct)
};

// A cluster of step 4 that model mode took apart (splitClusters), with the predicted cost of its
// fields' accesses both ways (sectors + requested lines x kL1WavefrontWeight, Analyze.h).
struct ClusterApart {
  std::vector<std::string> fields;
  double together = 0;
  double apart = 0;
};

struct Clustering {
  FieldAccessTree tree;                 // step 1
  FieldAccessTree withinKernels;        // step 2
  std::vector<LoopNode> acrossKernels;  // step 3 (before each field is given one cluster)
  std::vector<FieldCluster> clusters;   // step 4, less those taken apart
  std::vector<ClusterApart> apart;      // model mode: clusters of step 4 whose fields became arrays of their own
};

// Two Counts are "equal" when they differ by at most this share of the larger one.
inline constexpr double kEqualCountTolerance = 0.10;
bool countsEqual(double a, double b);

// Step 1: Loop nodes from the sites, under every kernel that reaches them; a loop's Count is
// `counts[key]` when given, else the largest thread-level executions of the sites directly in it. Loops
// with Count 0 (never executed) are left out.
FieldAccessTree buildFieldAccessTree(const StructInfo& s, const std::vector<TreeSite>& sites,
                                     const LoopCounts& counts = {});

// Steps 2-4 on a tree (built above, or by hand as in the paper's example).
Clustering clusterFields(const StructInfo& s, const FieldAccessTree& tree);

// The clustering with the clusters at `apart` (indices into clustering.clusters) taken apart: each
// of their accessed fields becomes its own array, listed in Clustering::apart (whose costs the
// caller fills in); never-accessed fields are placed again as step 4 places them.
Clustering splitClusters(const StructInfo& s, const Clustering& clustering, const std::set<size_t>& apart);

// The clustering with each cluster that holds both kinds cut by how its fields are reached: the
// fields some warp reaches through another element's index (a neighbour list, a gather) stay
// together, one sector per gathered element; those every warp reads at its own index (`ownIndex`)
// become arrays of their own, which such warps read whole, instead of fetching the gathered
// fields' bytes with them (cfd's neighbour indices and face normals beside the gathered state).
Clustering separateOwnIndexFields(const StructInfo& s, const Clustering& clustering,
                                  const std::set<std::string>& ownIndex);

}  // namespace relayout
