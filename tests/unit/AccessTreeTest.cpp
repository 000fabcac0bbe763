// The field access tree and clustering of seed paper 001 (PAPER.md, section 6), on the paper's
// worked example and on each decision docs/analysis.md takes where the paper is silent.
#include "relayout/analysis/AccessTree.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

using Fields = std::vector<std::string>;

StructInfo floats(const std::string& name, const Fields& names) {
  StructInfo s{name, {"sph.cu", 1, 8}, 0, 4, {}};
  for (const std::string& f : names) s.fields.push_back({f, "float", 4 * unsigned(s.fields.size()), 4, 4});
  s.size = 4 * unsigned(names.size());
  return s;
}

LoopNode loop(const std::string& kernel, const std::string& label, double count, Fields fields) {
  return {kernel, label, count, true, std::move(fields)};
}

// The paper's figures 14-18 are images; the text gives the steps and the result (Fig. 18). This
// is an SPH particle (PAPER.md: the evaluation's dam break) whose tree, built as the text says,
// goes through every step: equal Counts merge within calcForce (step 2), calcDensity's neighbour
// loop joins calcForce's across kernels, as does integrate's body with calcForce's (step 3).
StructInfo sphParticle() {
  return floats("Particle", {"vx", "vy", "vz", "px", "py", "pz", "ax", "ay", "az", "prs", "dns"});
}

FieldAccessTree paperTree() {
  FieldAccessTree tree;
  tree.kernels.push_back({"calcDensity",
                          {loop("calcDensity", "neighbour loop", 6400, {"px", "py", "pz"}),
                           loop("calcDensity", "body", 200, {"dns"})}});
  tree.kernels.push_back({"calcForce",
                          {loop("calcForce", "pressure loop", 6400, {"px", "py", "pz", "prs", "dns"}),
                           loop("calcForce", "viscosity loop", 6400, {"vx", "vy", "vz"}),
                           loop("calcForce", "body", 200, {"ax", "ay", "az"})}});
  tree.kernels.push_back(
      {"integrate", {loop("integrate", "body", 200, {"vx", "vy", "vz", "px", "py", "pz", "ax", "ay", "az"})}});
  return tree;
}

TEST(AccessTree, PaperWorkedExampleGivesSt1AndSt2) {
  Clustering c = clusterFields(sphParticle(), paperTree());

  // Step 2: calcForce's two neighbour loops (Count 6400) are one node.
  ASSERT_EQ(c.withinKernels.kernels.size(), 3u);
  ASSERT_EQ(c.withinKernels.kernels[1].loops.size(), 2u);
  EXPECT_EQ(c.withinKernels.kernels[1].loops[0].fields, (Fields{"vx", "vy", "vz", "px", "py", "pz", "prs", "dns"}));

  // Step 3: three nodes are left; dns stays in two of them until each field gets one cluster.
  ASSERT_EQ(c.acrossKernels.size(), 3u);
  EXPECT_EQ(c.acrossKernels[0].fields, (Fields{"vx", "vy", "vz", "px", "py", "pz", "prs", "dns"}));
  EXPECT_EQ(c.acrossKernels[1].fields, (Fields{"dns"}));
  EXPECT_EQ(c.acrossKernels[2].fields, (Fields{"vx", "vy", "vz", "px", "py", "pz", "ax", "ay", "az"}));

  // Step 4, the paper's Fig. 18: St1 {vx,vy,vz,px,py,pz,prs,dns} (32 bytes), St2 {ax,ay,az} (12 + 4 padding).
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"vx", "vy", "vz", "px", "py", "pz", "prs", "dns"}));
  EXPECT_EQ(c.clusters[0].bytes, 32u);
  EXPECT_EQ(c.clusters[0].paddingBytes, 0u);
  EXPECT_EQ(c.clusters[1].fields, (Fields{"ax", "ay", "az"}));
  EXPECT_EQ(c.clusters[1].bytes, 16u);
  EXPECT_EQ(c.clusters[1].paddingBytes, 4u);
  // Named after their fields, a vector's components once (vxyz for vx, vy, vz).
  EXPECT_EQ(c.clusters[0].name, "vxyz_pxyz_prs_dns");
  EXPECT_EQ(c.clusters[1].name, "axyz");
}

TEST(AccessTree, CountsWithinTenPercentAreEqual) {
  EXPECT_TRUE(countsEqual(1000, 1090));
  EXPECT_TRUE(countsEqual(1090, 1000));
  EXPECT_FALSE(countsEqual(1000, 1200));
  EXPECT_TRUE(countsEqual(0, 0));
}

TEST(AccessTree, NeverAccessedFieldsFillPaddingThenGoCold) {
  StructInfo s = floats("S", {"a", "b", "c", "d", "e", "f", "g"});
  FieldAccessTree tree;
  tree.kernels.push_back({"k", {loop("k", "hot", 1000, {"a", "b", "c"}), loop("k", "warm", 10, {"d", "e"})}});
  Clustering c = clusterFields(s, tree);
  // {d, e} is 8 bytes aligned to 8: no padding. f fits into {a, b, c}'s 4 padding bytes (12
  // bytes aligned to 16); then nothing has room and g goes cold.
  ASSERT_EQ(c.clusters.size(), 3u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"a", "b", "c", "f"}));
  EXPECT_EQ(c.clusters[0].paddingBytes, 0u);
  EXPECT_EQ(c.clusters[1].fields, (Fields{"d", "e"}));
  EXPECT_EQ(c.clusters[1].bytes, 8u);
  EXPECT_EQ(c.clusters[1].paddingBytes, 0u);
  EXPECT_EQ(c.clusters[2].fields, (Fields{"g"}));
  EXPECT_EQ(c.clusters[2].count, 0);

  // A warm cluster of three: the coldest cluster's padding takes the first never-accessed field.
  FieldAccessTree three;
  three.kernels.push_back({"k", {loop("k", "hot", 1000, {"a", "b", "c"}), loop("k", "warm", 10, {"d", "e", "f"})}});
  Clustering t = clusterFields(s, three);
  ASSERT_EQ(t.clusters.size(), 2u);
  EXPECT_EQ(t.clusters[0].fields, (Fields{"a", "b", "c"}));
  EXPECT_EQ(t.clusters[1].fields, (Fields{"d", "e", "f", "g"}));
  EXPECT_EQ(t.clusters[1].paddingBytes, 0u);

  StructInfo wide = floats("W", {"a", "b", "c", "d", "x", "y"});
  FieldAccessTree full;
  full.kernels.push_back({"k", {loop("k", "hot", 1000, {"a", "b", "c", "d"})}});
  Clustering w = clusterFields(wide, full);
  ASSERT_EQ(w.clusters.size(), 2u);
  EXPECT_EQ(w.clusters[1].name, "cold");
  EXPECT_EQ(w.clusters[1].fields, (Fields{"x", "y"}));
  EXPECT_EQ(w.clusters[1].count, 0);
}

TEST(AccessTree, ATakenApartClusterGivesItsFieldsArraysAndPlacesItsPaddingAgain) {
  // {d, e, f} held g in its padding; taken apart, d, e and f are arrays of their own and g, with
  // no multi-field cluster whose padding fits it but {a, b, c}'s, goes there.
  StructInfo s = floats("S", {"a", "b", "c", "d", "e", "f", "g"});
  FieldAccessTree tree;
  tree.kernels.push_back({"k", {loop("k", "hot", 1000, {"a", "b", "c"}), loop("k", "warm", 10, {"d", "e", "f"})}});
  Clustering c = splitClusters(s, clusterFields(s, tree), {1});
  ASSERT_EQ(c.apart.size(), 1u);
  EXPECT_EQ(c.apart[0].fields, (Fields{"d", "e", "f"}));
  ASSERT_EQ(c.clusters.size(), 4u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"a", "b", "c", "g"}));
  EXPECT_EQ(c.clusters[0].name, "a_b_c_g");
  EXPECT_EQ(c.clusters[1].fields, (Fields{"d"}));
  EXPECT_EQ(c.clusters[1].name, "d");
  EXPECT_EQ(c.clusters[1].count, 10);
  EXPECT_EQ(c.clusters[2].fields, (Fields{"e"}));
  EXPECT_EQ(c.clusters[3].fields, (Fields{"f"}));
  // The tree and the merged nodes are the ones the clusters came from.
  EXPECT_EQ(c.acrossKernels.size(), 2u);

  // Nothing taken apart: the same clusters.
  Clustering same = splitClusters(s, clusterFields(s, tree), {});
  EXPECT_TRUE(same.apart.empty());
  ASSERT_EQ(same.clusters.size(), 2u);
  EXPECT_EQ(same.clusters[1].fields, (Fields{"d", "e", "f", "g"}));
}

TEST(AccessTree, AClusterIsCutBetweenGatheredAndOwnIndexFields) {
  // One loop reaches a, b, c through a neighbour's index and reads d, e at its own: the gathered
  // fields stay one cluster, each own-index field is an array of its own; f, never accessed, goes
  // into {a, b, c}'s padding. A cluster of one kind only is left as it is.
  StructInfo s = floats("S", {"a", "b", "c", "d", "e", "f"});
  FieldAccessTree tree;
  tree.kernels.push_back({"k", {loop("k", "flux", 1000, {"a", "b", "c", "d", "e"})}});
  Clustering c = separateOwnIndexFields(s, clusterFields(s, tree), {"d", "e"});
  ASSERT_EQ(c.clusters.size(), 3u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"a", "b", "c", "f"}));
  EXPECT_EQ(c.clusters[1].fields, (Fields{"d"}));
  EXPECT_EQ(c.clusters[2].fields, (Fields{"e"}));
  EXPECT_TRUE(c.apart.empty());
  Clustering same = separateOwnIndexFields(s, clusterFields(s, tree), {"f"});
  EXPECT_EQ(same.clusters[0].fields, clusterFields(s, tree).clusters[0].fields);
}

TEST(AccessTree, ASingleFieldIsAPlainArrayNamedAfterIt) {
  StructInfo s = floats("S", {"a", "b", "c"});
  FieldAccessTree tree;
  tree.kernels.push_back({"k", {loop("k", "l1", 1000, {"a", "b"}), loop("k", "l2", 10, {"c"})}});
  Clustering c = clusterFields(s, tree);
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[1].name, "c");
  EXPECT_EQ(c.clusters[1].bytes, 4u);
  EXPECT_EQ(c.clusters[1].paddingBytes, 0u);
}

TEST(AccessTree, AFieldInSeveralLoopsJoinsTheHottest) {
  StructInfo s = floats("S", {"a", "b", "c", "d"});
  FieldAccessTree tree;
  tree.kernels.push_back({"k1", {loop("k1", "l", 50, {"a", "b"})}});
  tree.kernels.push_back({"k2", {loop("k2", "l", 5000, {"b", "c", "d"})}});
  Clustering c = clusterFields(s, tree);
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"b", "c", "d"}));
  EXPECT_EQ(c.clusters[1].fields, (Fields{"a"}));
}

TEST(AccessTree, ClusterNamesComeFromFieldsAndAreUniqueApartFromThem) {
  // {a, b} would be `a_b`, a field's name: it gets `_2`. Outer underscores go (`force_` and `vel_`
  // give `force_vel`, no reserved `__`); the kernel's name plays no part.
  StructInfo s = floats("S", {"a_b", "a", "b", "force_", "vel_"});
  FieldAccessTree tree;
  tree.kernels.push_back({"ns::step<float>(S*, int)",
                          {loop("ns::step<float>(S*, int)", "l1", 1000, {"a", "b"}),
                           loop("ns::step<float>(S*, int)", "l2", 10, {"a_b", "force_", "vel_"})}});
  Clustering c = clusterFields(s, tree);
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].name, "a_b_2");
  EXPECT_EQ(c.clusters[1].name, "a_b_force_vel");
}

TEST(AccessTree, BuiltFromSitesWithDerivedAndMeasuredCounts) {
  StructInfo s = floats("S", {"a", "b", "c", "d"});
  LoopKey helperLoop{"x.cu", "helper", 3}, body{"x.cu", "k1", std::nullopt}, dead{"x.cu", "k1", 7};
  std::vector<TreeSite> sites = {
      {helperLoop, "x.cu:20 for", {"k1", "k2"}, "a", 900},
      {helperLoop, "x.cu:20 for", {"k1", "k2"}, "b", 1000},  // the loop's Count: its busiest site
      {body, "body of k1", {}, "c", 32},
      {dead, "x.cu:30 while", {}, "d", 0},  // never ran: left out, d is never accessed
  };
  FieldAccessTree tree = buildFieldAccessTree(s, sites);
  ASSERT_EQ(tree.kernels.size(), 2u);
  EXPECT_EQ(tree.kernels[0].name, "k1");
  ASSERT_EQ(tree.kernels[0].loops.size(), 2u);
  EXPECT_EQ(tree.kernels[0].loops[0].fields, (Fields{"a", "b"}));
  EXPECT_DOUBLE_EQ(tree.kernels[0].loops[0].count, 1000);
  EXPECT_FALSE(tree.kernels[0].loops[0].measured);
  EXPECT_EQ(tree.kernels[1].name, "k2");  // the helper's loop under each kernel that reaches it
  EXPECT_EQ(tree.kernels[1].loops[0].fields, (Fields{"a", "b"}));

  FieldAccessTree measured = buildFieldAccessTree(s, sites, {{helperLoop, 64000}});
  EXPECT_DOUBLE_EQ(measured.kernels[0].loops[0].count, 64000);
  EXPECT_TRUE(measured.kernels[0].loops[0].measured);

  // The two copies of the helper's loop merge across kernels again.
  Clustering c = clusterFields(s, tree);
  ASSERT_EQ(c.acrossKernels.size(), 2u);
  ASSERT_EQ(c.clusters.size(), 3u);
  EXPECT_EQ(c.clusters[0].fields, (Fields{"a", "b"}));  // 8 bytes aligned to 8: no room for d
  EXPECT_EQ(c.clusters[1].fields, (Fields{"c"}));
  EXPECT_EQ(c.clusters[2].fields, (Fields{"d"}));
}

}  // namespace
}  // namespace relayout
