// The rewrites worth measuring before one is applied: the analysis's pick and the other plans the
// rewriter can emit from the layouts it weighed, ranked by predicted cost (docs/analysis.md,
// "Candidates"). The model ranks; the GPU decides (tool/: interleaved runs against the original).
#pragma once

#include "relayout/analysis/Analyze.h"
#include "relayout/core/Plan.h"

#include <map>
#include <string>
#include <vector>

namespace relayout {

struct CandidatePlan {
  std::string name;  // "soa" or "clustered" when every changed struct has that layout, else "mixed-N"
  Plan plan;
  std::map<std::string, Layout> layouts;  // every struct the candidate changes from AoS, by name
  double predictedCost = 0;               // the structs' predicted costs under these layouts, summed
  double originalCost = 0;                // the same with every struct as it is (AoS)
  bool pick = false;                      // the analysis's own plan
  // SoA structs stored transposed (StructPlan::transpose), by name: rows of this many elements.
  std::map<std::string, unsigned> transposed = {};
};

struct CandidateOptions {
  unsigned count = 3;  // at most this many, the analysis's pick first
  // Also every layout the rewriter can put on all structs at once (soa, clustered, aligned), beyond `count`:
  // the selection benchmark times each against the original.
  bool everyUniformLayout = false;
};

// A struct's predicted cost under a layout: model mode's cost (sectors from L2 + requested lines x
// kL1WavefrontWeight + requests); paper mode's predicted sectors, four to a line.
double predictedCost(const StructDecision& d, Layout layout, AnalyzeMode mode);

// The row length of a flattened 2-D array that a struct's accesses index (`row * W + k`, the site
// map's row_width): the W of the sites holding most executions, when those are at least half of all
// its executed sites' executions; else 0.
unsigned transposeWidth(const StructDecision& d);

// The candidates, without the plan that changes nothing (the original is always measured): the
// analysis's pick first when it changes something, then the other combinations of the layouts each
// struct weighed, cheapest predicted cost first; then, for each struct whose accesses index a
// flattened 2-D array (transposeWidth), the pick with that struct SoA stored transposed: a layout
// the model does not price (its predicted cost is SoA's), so measured beyond `count`. A forced
// analysis (--layout) has one candidate, its plan. Structs the analysis did not decide (no executed
// access, profile out of date) stay AoS.
std::vector<CandidatePlan> rankCandidates(const Analysis& analysis, const CandidateOptions& options);

// "Particle soa, Cell clustered": the layouts a candidate gives, for reports.
std::string describeLayouts(const CandidatePlan& candidate);

}  // namespace relayout
