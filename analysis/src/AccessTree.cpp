#include "relayout/analysis/AccessTree.h"

#include "relayout/core/LayoutMapping.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

namespace relayout {

bool countsEqual(double a, double b) {
  double larger = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= kEqualCountTolerance * larger;
}

namespace {

std::vector<std::string> inDeclarationOrder(const StructInfo& s, const std::set<std::string>& names) {
  std::vector<std::string> out;
  for (const FieldInfo& f : s.fields)
    if (names.count(f.name)) out.push_back(f.name);
  return out;
}

// Merges b into a: union of the fields, the larger Count, both labels.
void absorb(const StructInfo& s, LoopNode& a, const LoopNode& b) {
  std::set<std::string> fields(a.fields.begin(), a.fields.end());
  fields.insert(b.fields.begin(), b.fields.end());
  a.fields = inDeclarationOrder(s, fields);
  a.count = std::max(a.count, b.count);
  a.measured = a.measured && b.measured;
  a.label += ", " + (b.kernel == a.kernel ? "" : b.kernel + ": ") + b.label;
}

bool shareField(const LoopNode& a, const LoopNode& b) {
  for (const std::string& f : a.fields)
    if (std::find(b.fields.begin(), b.fields.end(), f) != b.fields.end()) return true;
  return false;
}

// sizeof the cluster's storage (core/LayoutMapping.h: a struct of two or more fields aligned by
// clusterAlign, a plain array of a lone field) and the padding that adds.
void sizeCluster(const StructInfo& s, FieldCluster& c) {
  const LayoutMapping mapping = LayoutMapping::clustered(mappedFields(s), {c.fields});
  const ClusterStorage storage = mapping.clusters().empty() ? ClusterStorage{} : mapping.clusters()[0];
  c.dataBytes = static_cast<unsigned>(storage.dataBytes);
  c.bytes = static_cast<unsigned>(storage.bytes);
  c.paddingBytes = static_cast<unsigned>(storage.paddingBytes());
}

// A sub-struct's name, from its fields as a reviewer would name it: the fields joined (`force_vel`
// for force_ and vel_: each field's outer underscores go, so that no `__` makes a name reserved),
// components of one vector written once (`xyz` for x, y, z; `vxyz` for vx, vy, vz; `pos_xy` for
// pos_x, pos_y), cut after 24 characters with `_etc`.
std::string clusterNameFrom(const std::vector<std::string>& fields) {
  std::vector<std::string> words;
  for (const std::string& field : fields) {
    const size_t first = field.find_first_not_of('_'), last = field.find_last_not_of('_');
    if (first != std::string::npos) words.push_back(field.substr(first, last - first + 1));
  }
  // A run of words that differ only in a last letter x, y, z or w becomes the prefix and the letters.
  auto axisPrefix = [](const std::string& word) -> std::optional<std::string> {
    if (std::string("xyzw").find(word.back()) == std::string::npos) return std::nullopt;
    return word.substr(0, word.size() - 1);
  };
  std::vector<std::string> parts;
  for (size_t i = 0; i < words.size();) {
    const std::optional<std::string> prefix = axisPrefix(words[i]);
    size_t end = i + 1;
    while (prefix && end < words.size() && axisPrefix(words[end]) == prefix) ++end;
    if (end - i < 2) {
      parts.push_back(words[i++]);
      continue;
    }
    std::string part = *prefix;
    for (; i < end; ++i) part += words[i].back();
    parts.push_back(part);
  }
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty() && joined.size() + 1 + part.size() > 24) return joined + "_etc";
    joined += (joined.empty() ? "" : "_") + part;
  }
  if (joined.empty() || std::isdigit(static_cast<unsigned char>(joined[0]))) joined = "fields" + joined;
  return joined;
}

// Step 4's end, for the clusters of accessed fields: hottest first, then the 16-byte adjustment.
void placeNeverAccessed(const StructInfo& s, std::vector<FieldCluster>& clusters,
                        const std::set<std::string>& accessed) {
  std::stable_sort(clusters.begin(), clusters.end(),
                   [](const FieldCluster& a, const FieldCluster& b) { return a.count > b.count; });

  // The 16-byte adjustment: alignment pads a multi-field cluster. A never-accessed field
  // that fits in that padding goes there (the padding bytes move anyway); coldest cluster first.
  std::vector<std::string> cold;
  for (const FieldInfo& f : s.fields) {
    if (accessed.count(f.name)) continue;
    bool placed = false;
    for (auto c = clusters.rbegin(); c != clusters.rend() && !placed; ++c) {
      if (c->fields.size() < 2) continue;
      FieldCluster grown = *c;
      std::set<std::string> names(grown.fields.begin(), grown.fields.end());
      names.insert(f.name);
      grown.fields = inDeclarationOrder(s, names);
      sizeCluster(s, grown);
      if (grown.bytes == c->bytes) *c = std::move(grown), placed = true;
    }
    if (!placed) cold.push_back(f.name);
  }
  if (!cold.empty()) {
    FieldCluster c{"", cold, 0, 0, 0, 0, "never accessed", ""};
    sizeCluster(s, c);
    clusters.push_back(std::move(c));
  }
}

void nameClusters(const StructInfo& s, std::vector<FieldCluster>& clusters) {
  // Names: a single field is its own array; a sub-struct is named after its fields ("cold" for
  // never-accessed fields), made unique against fields and clusters. Not after the kernel its Loop
  // node came from: other kernels touch the same fields, and a name like `computeCells` on
  // {ax, ay, az}, which computeCells never touches, misleads whoever reads the rewrite.
  std::set<std::string> taken;
  for (const FieldInfo& f : s.fields) taken.insert(f.name);
  for (size_t i = 0; i < clusters.size(); ++i) {
    FieldCluster& c = clusters[i];
    if (c.fields.size() == 1) {
      c.name = c.fields[0];
      continue;
    }
    std::string base = c.count == 0 ? "cold" : clusterNameFrom(c.fields);
    c.name = base;
    for (int k = 2; taken.count(c.name); ++k) c.name = base + "_" + std::to_string(k);
    taken.insert(c.name);
  }
}

}  // namespace

FieldAccessTree buildFieldAccessTree(const StructInfo& s, const std::vector<TreeSite>& sites,
                                     const LoopCounts& counts) {
  struct Loop {
    std::string label;
    double derived = 0;
    std::set<std::string> fields;
  };
  std::map<LoopKey, Loop> loops;
  std::vector<LoopKey> loopOrder;
  std::vector<std::string> kernelOrder;
  std::map<std::string, std::vector<LoopKey>> loopsOfKernel;
  for (const TreeSite& site : sites) {
    auto [it, fresh] = loops.try_emplace(site.key);
    if (fresh) loopOrder.push_back(site.key);
    it->second.label = site.loopLabel;
    it->second.derived = std::max(it->second.derived, site.executions);
    it->second.fields.insert(site.field);
    // A device helper's site split per calling kernel (kernel_sites) comes once per kernel, with
    // that kernel's counts. Otherwise its loop goes under every kernel that reaches it (their counters are summed
    // in one site, so each copy carries the same Count; step 3 merges the copies again).
    std::vector<std::string> kernels = site.kernels.empty() ? std::vector{site.key.function} : site.kernels;
    for (const std::string& k : kernels) {
      auto& keys = loopsOfKernel[k];
      if (keys.empty()) kernelOrder.push_back(k);
      if (std::find(keys.begin(), keys.end(), site.key) == keys.end()) keys.push_back(site.key);
    }
  }
  FieldAccessTree tree;
  for (const std::string& k : kernelOrder) {
    KernelNode kernel{k, {}};
    for (const LoopKey& key : loopsOfKernel[k]) {
      const Loop& loop = loops[key];
      auto measured = counts.find(key);
      LoopNode node{k, loop.label, measured != counts.end() ? measured->second : loop.derived,
                    measured != counts.end(), inDeclarationOrder(s, loop.fields)};
      if (node.count > 0) kernel.loops.push_back(std::move(node));  // never ran: no evidence of locality
    }
    if (!kernel.loops.empty()) tree.kernels.push_back(std::move(kernel));
  }
  return tree;
}

Clustering clusterFields(const StructInfo& s, const FieldAccessTree& tree) {
  Clustering result;
  result.tree = tree;

  // Step 2: within a kernel, Loop nodes of equal Count become one (greedily, hottest first, so
  // that a group's Count is its largest and the tolerance is measured from it).
  for (const KernelNode& kernel : tree.kernels) {
    std::vector<LoopNode> loops = kernel.loops;
    std::stable_sort(loops.begin(), loops.end(), [](const LoopNode& a, const LoopNode& b) { return a.count > b.count; });
    KernelNode merged{kernel.name, {}};
    for (const LoopNode& loop : loops) {
      if (!merged.loops.empty() && countsEqual(merged.loops.back().count, loop.count))
        absorb(s, merged.loops.back(), loop);
      else
        merged.loops.push_back(loop);
    }
    result.withinKernels.kernels.push_back(std::move(merged));
  }

  // Step 3: across kernels, nodes that share a field and have equal Counts become one, until no
  // pair is left (a merge can make a new pair).
  std::vector<LoopNode>& nodes = result.acrossKernels;
  for (const KernelNode& kernel : result.withinKernels.kernels)
    nodes.insert(nodes.end(), kernel.loops.begin(), kernel.loops.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < nodes.size() && !changed; ++i)
      for (size_t j = i + 1; j < nodes.size() && !changed; ++j)
        if (shareField(nodes[i], nodes[j]) && countsEqual(nodes[i].count, nodes[j].count)) {
          absorb(s, nodes[i], nodes[j]);
          nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(j));
          changed = true;
        }
  }

  // A field still under several nodes joins the one with the largest Count (that loop moves it
  // most often); ties go to the node with more fields (wider loads), then the earlier node.
  std::vector<std::set<std::string>> assigned(nodes.size());
  std::set<std::string> accessed;
  for (const FieldInfo& f : s.fields) {
    int best = -1;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (std::find(nodes[i].fields.begin(), nodes[i].fields.end(), f.name) == nodes[i].fields.end()) continue;
      if (best < 0 || nodes[i].count > nodes[best].count ||
          (nodes[i].count == nodes[best].count && nodes[i].fields.size() > nodes[best].fields.size()))
        best = static_cast<int>(i);
    }
    if (best >= 0) assigned[best].insert(f.name), accessed.insert(f.name);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (assigned[i].empty()) continue;
    FieldCluster c{"", inDeclarationOrder(s, assigned[i]), 0, 0, 0, nodes[i].count,
                   nodes[i].kernel + ": " + nodes[i].label, nodes[i].kernel};
    sizeCluster(s, c);
    result.clusters.push_back(std::move(c));
  }
  placeNeverAccessed(s, result.clusters, accessed);
  nameClusters(s, result.clusters);
  return result;
}

namespace {

// The clustering with each cluster's accessed fields cut into the parts `cut(i, fields, result)`
// gives (a cut may record what it took apart in `result`); never-accessed fields are placed again
// as step 4 places them, and the clusters named again.
template <class Cut>
Clustering recut(const StructInfo& s, const Clustering& clustering, Cut cut) {
  Clustering result = clustering;
  std::set<std::string> accessed;
  for (const LoopNode& node : clustering.acrossKernels) accessed.insert(node.fields.begin(), node.fields.end());
  result.clusters.clear();
  for (size_t i = 0; i < clustering.clusters.size(); ++i) {
    const FieldCluster& c = clustering.clusters[i];
    std::vector<std::string> kept;  // never-accessed fields are placed again below
    for (const std::string& f : c.fields)
      if (accessed.count(f)) kept.push_back(f);
    if (kept.empty()) continue;
    for (std::vector<std::string>& fields : cut(i, kept, result)) {
      FieldCluster part = c;
      part.fields = std::move(fields);
      sizeCluster(s, part);
      result.clusters.push_back(std::move(part));
    }
  }
  placeNeverAccessed(s, result.clusters, accessed);
  nameClusters(s, result.clusters);
  return result;
}

std::vector<std::vector<std::string>> eachAlone(const std::vector<std::string>& fields) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& f : fields) parts.push_back({f});
  return parts;
}

}  // namespace

Clustering splitClusters(const StructInfo& s, const Clustering& clustering, const std::set<size_t>& apart) {
  return recut(s, clustering, [&](size_t i, const std::vector<std::string>& kept, Clustering& result) {
    if (!apart.count(i)) return std::vector<std::vector<std::string>>{kept};
    result.apart.push_back({kept, 0, 0});
    return eachAlone(kept);
  });
}

Clustering separateOwnIndexFields(const StructInfo& s, const Clustering& clustering,
                                  const std::set<std::string>& ownIndex) {
  return recut(s, clustering, [&](size_t, const std::vector<std::string>& kept, Clustering&) {
    std::vector<std::string> gathered, own;
    for (const std::string& f : kept) (ownIndex.count(f) ? own : gathered).push_back(f);
    if (gathered.empty() || own.empty()) return std::vector<std::vector<std::string>>{kept};
    std::vector<std::vector<std::string>> parts = eachAlone(own);
    parts.insert(parts.begin(), gathered);
    return parts;
  });
}

}  // namespace relayout
