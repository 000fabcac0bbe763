// Internal to analysis/: facts that the terminal report, report.md and report.html all state,
// computed once here: the decision and its margin, one element's bytes before and after the chosen
// layout, the kernels a layout slows down, and the pick of the analysis mode that did not decide.
#pragma once

#include "relayout/analysis/Analyze.h"

#include <optional>
#include <string>
#include <vector>

namespace relayout {

// "AoS (unchanged)", "SoA", "clustered": a struct's layout as the reports name it.
const char* reportLayoutName(Layout layout);
// The struct's decided layout as the reports name it: reportLayoutName, and for SoA stored
// transposed, "SoA stored transposed (rows of W)".
std::string decisionLayoutName(const StructDecision& d);
// Whether any of the struct's sites executed (sites are sorted by weight, executed ones first).
bool executed(const StructDecision& d);

// The decision and its margin in one sentence, alike in every report and mode, as a percentage:
// "SoA: 36% less predicted cost than AoS (1.2e+08 against 1.9e+08)" (model mode), "AoS kept: SoA's
// predicted cost is 4% lower, short of the 10% a change needs"; in paper mode the share of the
// rule's weighted executions that voted for the layout, then the predicted sectors' change.
std::string decisionLine(const Analysis& a, const StructDecision& d);

struct ByteSpan {
  std::string name;  // the field; empty for padding
  unsigned offset = 0;
  unsigned size = 0;
  bool padding() const { return name.empty(); }
};

// The struct as declared, in offset order, with the padding between fields and at the end.
std::vector<ByteSpan> bytesBefore(const StructInfo& info);

// One array the rewrite makes of the struct: a field's (SoA) or a cluster's sub-struct.
struct ArrayAfter {
  std::string name;             // as the rewritten sources name the array's element
  unsigned bytes = 0;           // one element of the array
  std::vector<ByteSpan> spans;  // its fields laid end to end, then its padding
  unsigned paddingBytes = 0;
};

// The chosen layout's arrays, one per field (SoA) or cluster (clustered); empty for AoS.
std::vector<ArrayAfter> arraysAfter(const StructDecision& d);
// What one element takes across those arrays against the struct's size, said once for every
// report: "64 B per element in all, 48 B before (+33%)"; empty for AoS.
std::string elementGrowth(const StructDecision& d);

// The chosen layout's change of the kernel's sectors from AoS (+0.5: 50% more); 0 where AoS has none.
double changeFromAoS(double sectors, double aos);
// Whether the chosen layout makes the kernel read more sectors than AoS, past noise (5%).
bool slowerUnderChosen(const StructDecision& d, const KernelSectors& k);

// The paper rule's pick from a model-mode analysis: its weighted sum is the sites' weights summed;
// a negative sum picks SoA, any other keeps the elements together, split into the field access tree's clusters where it
// has more than one. Empty for a struct with no executed site.
std::optional<Layout> paperPick(const StructDecision& d);

}  // namespace relayout
