// The candidates measured before a rewrite is applied (analysis/Candidates.h): the analysis's pick
// first, then the other layouts it weighed, cheapest predicted cost first.
#include "relayout/analysis/Candidates.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

// A model-mode decision with these predicted costs (AoS, SoA, clustered) and weighed layouts.
StructDecision decision(const std::string& name, double aos, double soa, double clustered, Layout pick,
                        std::vector<Layout> weighed) {
  StructDecision d;
  d.name = name;
  d.layout = pick;
  d.cost.aos = aos, d.cost.soa = soa, d.cost.clustered = clustered;
  d.weighed = std::move(weighed);
  if (std::find(d.weighed.begin(), d.weighed.end(), Layout::Clustered) != d.weighed.end()) {
    Clustering c;
    FieldCluster hot, cold;
    hot.name = "hot", hot.fields = {"x", "y"};
    cold.name = "cold", cold.fields = {"z"};
    c.clusters = {hot, cold};
    d.clustering = c;
  }
  return d;
}

Analysis analysisOf(std::vector<StructDecision> decisions) {
  Analysis a;
  a.mode = AnalyzeMode::Model;
  for (StructDecision& d : decisions) {
    StructPlan sp;
    sp.name = d.name;
    sp.fields = {"x", "y", "z"};
    sp.layout = d.layout;
    if (d.layout == Layout::SoA) sp.clusters = soaClusters(sp.fields);
    a.plan.structs.push_back(sp);
    a.structs.push_back(std::move(d));
  }
  return a;
}

TEST(CandidatesTest, ThePickFirstThenTheCheapestOtherLayouts) {
  // One struct: the model picked SoA (cost 60 of 100); clustered (70) comes next.
  Analysis a = analysisOf({decision("P", 100, 60, 70, Layout::SoA, {Layout::AoS, Layout::Clustered, Layout::SoA})});
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_EQ(c.size(), 2u);  // AoS is the original, never a candidate
  EXPECT_EQ(c[0].name, "soa");
  EXPECT_TRUE(c[0].pick);
  EXPECT_DOUBLE_EQ(c[0].predictedCost, 60);
  EXPECT_DOUBLE_EQ(c[0].originalCost, 100);
  EXPECT_EQ(c[1].name, "clustered");
  EXPECT_FALSE(c[1].pick);
  EXPECT_EQ(c[1].plan.structs[0].layout, Layout::Clustered);
  ASSERT_EQ(c[1].plan.structs[0].clusters.size(), 2u);
  EXPECT_EQ(c[1].plan.structs[0].clusters[0].fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(c[0].plan.structs[0].clusters.size(), 3u);  // SoA: one array per field
}

TEST(CandidatesTest, APickThatKeepsAoSStillGetsTheOthersMeasured) {
  // The model kept AoS (SoA predicted only 5% cheaper, under its threshold): only measurement tells.
  Analysis a = analysisOf({decision("P", 100, 95, 0, Layout::AoS, {Layout::AoS, Layout::SoA})});
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "soa");
  EXPECT_FALSE(c[0].pick);
}

TEST(CandidatesTest, CombinationsOfSeveralStructsAreRankedAndCapped) {
  Analysis a =
      analysisOf({decision("A", 100, 50, 0, Layout::SoA, {Layout::AoS, Layout::SoA}),
                  decision("B", 100, 120, 80, Layout::Clustered, {Layout::AoS, Layout::Clustered, Layout::SoA}),
                  decision("C", 10, 20, 0, Layout::AoS, {})});  // not executed: fixed AoS
  std::vector<CandidatePlan> c = rankCandidates(a, {2, false});
  ASSERT_EQ(c.size(), 2u);
  // The pick: A soa + B clustered (50 + 80 + C's 10).
  EXPECT_TRUE(c[0].pick);
  EXPECT_DOUBLE_EQ(c[0].predictedCost, 140);
  EXPECT_DOUBLE_EQ(c[0].originalCost, 210);
  EXPECT_EQ(c[0].name, "mixed-1");
  EXPECT_EQ(describeLayouts(c[0]), "A soa, B clustered");
  // Next cheapest: A soa, B as it is (50 + 100 + 10 = 160).
  EXPECT_DOUBLE_EQ(c[1].predictedCost, 160);
  EXPECT_EQ(c[1].name, "A-soa");
  EXPECT_EQ(c[1].plan.findStruct("B")->layout, Layout::AoS);
  EXPECT_EQ(c[1].plan.findStruct("C")->layout, Layout::AoS);

  // Every uniform layout besides: soa on both, clustered on B (A has no clusters).
  std::vector<CandidatePlan> all = rankCandidates(a, {2, true});
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].name, "soa");
  EXPECT_EQ(describeLayouts(all[2]), "A soa, B soa");
  EXPECT_EQ(all[3].name, "B-clustered");
}

TEST(CandidatesTest, NothingToMeasureWhenNothingExecuted) {
  Analysis a = analysisOf({decision("P", 0, 0, 0, Layout::AoS, {})});
  EXPECT_TRUE(rankCandidates(a, {}).empty());
}

TEST(CandidatesTest, AForcedLayoutIsTheOneCandidate) {
  Analysis a =
      analysisOf({decision("P", 100, 60, 70, Layout::Clustered, {Layout::AoS, Layout::Clustered, Layout::SoA})});
  a.forced = true;
  a.plan.structs[0].layout = Layout::Clustered;
  std::vector<CandidatePlan> c = rankCandidates(a, {3, true});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "clustered");
  EXPECT_DOUBLE_EQ(c[0].predictedCost, 70);
}

// A record the model could align to its size (Layout::Aligned) is priced and measured, though not
// picked: the cheapest other layouts follow the pick, the aligned one among them, with its plan
// asking for no width (the rewriter aligns to the record's size).
TEST(CandidatesTest, AnAlignedRecordIsACandidateNotThePick) {
  StructDecision d = decision("C", 100, 80, 0, Layout::SoA, {Layout::AoS, Layout::Aligned, Layout::SoA});
  d.alignable = true;
  d.cost.aligned = 70;
  Analysis a = analysisOf({d});
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].name, "soa");
  EXPECT_TRUE(c[0].pick);
  EXPECT_EQ(c[1].name, "aligned");
  EXPECT_DOUBLE_EQ(c[1].predictedCost, 70);
  EXPECT_EQ(c[1].plan.structs[0].layout, Layout::Aligned);
  EXPECT_TRUE(c[1].plan.structs[0].clusters.empty());
  EXPECT_EQ(c[1].plan.structs[0].align, 0u);
  EXPECT_EQ(describeLayouts(c[1]), "C aligned");
}

}  // namespace
}  // namespace relayout

namespace relayout {
namespace {

// A site of `d` executed `lanes` times, its element indexed `row * width + k` (0: otherwise).
void addSite(StructDecision& d, uint64_t lanes, unsigned width) {
  SiteEvidence e;
  e.site.structName = d.name;
  e.site.rowWidth = width;
  e.counters.laneExecs = lanes;
  d.sites.push_back(e);
}

TEST(CandidatesTest, AFlattenedTwoDimensionalArrayIsAlsoMeasuredTransposed) {
  // Entry's accesses index rows of 27 (an ELL matrix) in most of their executions: beside the
  // pick, its SoA stored transposed is a candidate, priced as SoA (the model does not price it).
  StructDecision entry = decision("Entry", 100, 90, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  addSite(entry, 900, 27);
  addSite(entry, 100, 0);
  StructDecision cell = decision("Cell", 50, 40, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  addSite(cell, 100, 0);
  Analysis a = analysisOf({entry, cell});
  EXPECT_EQ(transposeWidth(a.structs[0]), 27u);
  EXPECT_EQ(transposeWidth(a.structs[1]), 0u);
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_FALSE(c.empty());
  const CandidatePlan& t = c.back();
  EXPECT_EQ(t.name, "Entry-soa-transposed");
  EXPECT_FALSE(t.pick);
  EXPECT_EQ(t.transposed, (std::map<std::string, unsigned>{{"Entry", 27}}));
  EXPECT_DOUBLE_EQ(t.predictedCost, 90 + 40);
  const StructPlan* sp = t.plan.findStruct("Entry");
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->layout, Layout::SoA);
  EXPECT_EQ(sp->transpose, 27u);
  EXPECT_EQ(t.plan.findStruct("Cell")->transpose, 0u);
  EXPECT_EQ(describeLayouts(t), "Cell soa, Entry soa transposed (rows of 27)");
  for (size_t i = 0; i + 1 < c.size(); ++i) EXPECT_TRUE(c[i].transposed.empty()) << c[i].name;
}

TEST(CandidatesTest, APricedTranspositionIsRankedByItsOwnCost) {
  // The model priced Entry's SoA stored transposed (50, against 90 untransposed) but chose plain
  // SoA: the transposed candidate carries the price the model gave it.
  StructDecision entry = decision("Entry", 100, 90, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  addSite(entry, 900, 27);
  entry.transposeWidth = 27, entry.transposedCost = 50;
  Analysis a = analysisOf({entry});
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.back().name, "Entry-soa-transposed");
  EXPECT_DOUBLE_EQ(c.back().predictedCost, 50);
  EXPECT_EQ(c.back().plan.findStruct("Entry")->transpose, 27u);
}

TEST(CandidatesTest, ATransposedPickIsMeasuredAgainstPlainSoA) {
  // The analysis chose Entry's SoA stored transposed (the plan's transpose): the pick carries the
  // transposition and its cost; plain SoA is the candidate beside it, at its own cost.
  StructDecision entry = decision("Entry", 100, 90, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  addSite(entry, 900, 27);
  entry.transposeWidth = 27, entry.transposedCost = 50, entry.transposed = true;
  StructDecision cell = decision("Cell", 50, 40, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  Analysis a = analysisOf({entry, cell});
  a.plan.structs[0].transpose = 27;
  std::vector<CandidatePlan> c = rankCandidates(a, {});
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[0].name, "soa");
  EXPECT_TRUE(c[0].pick);
  EXPECT_DOUBLE_EQ(c[0].predictedCost, 50 + 40);
  EXPECT_EQ(c[0].transposed, (std::map<std::string, unsigned>{{"Entry", 27}}));
  EXPECT_EQ(c[0].plan.findStruct("Entry")->transpose, 27u);
  // Entry AoS with Cell SoA: nothing to transpose.
  for (const CandidatePlan& k : c)
    if (k.layouts.count("Entry") == 0) EXPECT_TRUE(k.transposed.empty()) << k.name;
  const CandidatePlan& plain = c.back();
  EXPECT_EQ(plain.name, "Entry-soa-untransposed");
  EXPECT_FALSE(plain.pick);
  EXPECT_TRUE(plain.transposed.empty());
  EXPECT_DOUBLE_EQ(plain.predictedCost, 90 + 40);
  EXPECT_EQ(plain.plan.findStruct("Entry")->layout, Layout::SoA);
  EXPECT_EQ(plain.plan.findStruct("Entry")->transpose, 0u);
  EXPECT_EQ(describeLayouts(plain), "Cell soa, Entry soa");
}

TEST(CandidatesTest, RowsIndexedInFewExecutionsAreNotTransposed) {
  // The row-indexed site runs in a third of the executions: the array is mostly read otherwise.
  StructDecision entry = decision("Entry", 100, 90, 0, Layout::SoA, {Layout::AoS, Layout::SoA});
  addSite(entry, 100, 27);
  addSite(entry, 200, 0);
  EXPECT_EQ(transposeWidth(entry), 0u);
  Analysis a = analysisOf({entry});
  for (const CandidatePlan& c : rankCandidates(a, {})) EXPECT_TRUE(c.transposed.empty()) << c.name;
}

}  // namespace
}  // namespace relayout
