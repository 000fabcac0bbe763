// Faster or untouched: the candidate rewrites of one `relayout optimize` folder, measured against
// the original, and what is applied after. optimize stages the candidates (DIR/candidates/NAME/,
// candidates.json); relayout-verify times them (DIR/verify/verify.json, here or on a GPU machine);
// applySelection reads both and leaves DIR/rewritten and DIR/plan.json as what was measured
// faster, or removes the rewrite when nothing was (docs/formats.md, "Candidates and selection").
#pragma once

#include "relayout/analysis/Candidates.h"

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace relayout {

// A candidate as staged: its plan, where its sources are, and which of its layouts the rewrite
// could not apply (those structs stay as they are in it).
struct StagedCandidate {
  std::string name;
  bool pick = false;
  std::map<std::string, Layout> layouts;          // what the rewrite applied, by struct
  std::map<std::string, std::string> notApplied;  // struct -> why its layout was not applied
  double predictedCost = 0, originalCost = 0;
  std::string tree;  // DIR/candidates/NAME: the rewritten sources, in the sources' tree
  std::string plan;  // DIR/candidates/NAME/plan.json
  // The applied SoA layouts stored transposed, by struct: rows of this many elements.
  std::map<std::string, unsigned> transposed = {};
};

// DIR/candidates/candidates.json.
nlohmann::json candidatesJson(const std::vector<StagedCandidate>& candidates, const std::string& outDir);
llvm::Expected<std::vector<StagedCandidate>> readCandidates(const std::string& outDir);
std::string candidatesFolder(const std::string& outDir);  // DIR/candidates

// What measuring the candidates ended with.
enum class SelectionResult {
  Applied,    // a candidate's outputs equal the original's and it ran faster: DIR/rewritten is it
  Untouched,  // outputs equal, none faster beyond the runs' spread: the original stays
  Slower,     // outputs equal, and the best of them ran slower: the original stays
  Rejected,   // no candidate's outputs equal the original's
  Nothing,    // no candidate: the analysis keeps every struct as it is, or the rewrite applied none
};
const char* resultName(SelectionResult result);  // applied, untouched, slower, rejected, nothing
// A line for each result: what it means, for the batch summary's legend and the docs.
const char* resultMeaning(SelectionResult result);

// Why DIR has no candidate to measure, from the analysis's DIR/plan.json: it keeps every struct as
// it is, or it changes some that the rewrite refused (its warnings say why).
std::string nothingToMeasure(const std::string& outDir);

struct Selection {
  SelectionResult result = SelectionResult::Nothing;
  std::string applied;  // the candidate applied (Applied)
  std::string message;  // one line, with the numbers
};

// Reads DIR/candidates/candidates.json and DIR/verify/verify.json and acts on them: the faster
// candidate's sources become DIR/rewritten and its plan DIR/plan.json; with none faster, DIR/rewritten
// is removed and DIR/plan.json keeps every struct as it is, saying why; with none equal, DIR/rewritten
// moves to DIR/rejected. Writes DIR/selection.json and DIR/selection.md (per candidate the predicted
// cost beside the measured time). Without candidates.json (a folder of before candidates) nothing moves.
llvm::Expected<Selection> applySelection(const std::string& outDir);

// The plan that keeps every struct of `plan` as it is, each struct's reason saying `why`.
Plan keepEveryStruct(const Plan& plan, const std::string& why);

}  // namespace relayout
