// A file several translation units include (a header, or a .cu included by another) gets one
// rewritten text for all of them, so they must all see it alike: the facts each unit adds are
// kept apart here, and two units that disagree about a shared file (other macros or flags) stop
// the rewrite with an error naming the file and both units. Code that only one unit sees (an `#if`
// branch active in one unit) is not a disagreement: its edits join the others'.
#pragma once

#include "Facts.h"

#include "relayout/core/Plan.h"

#include <llvm/Support/Error.h>

#include <map>
#include <string>
#include <vector>

namespace relayout::rw {

// What one unit added to the program's facts.
struct UnitFacts {
  size_t firstDef = 0, endDef = 0;                 // its struct definitions: ProgramFacts::defs[first, end)
  std::map<std::string, std::vector<Edit>> edits;  // by planned struct: every edit it recorded, sorted, unique
};

// Counts the facts before a unit runs, so that what the unit added can be told apart afterwards
// (the per-unit passes only ever append to the facts).
class UnitRecorder {
 public:
  explicit UnitRecorder(const ProgramFacts& facts);
  UnitFacts added(const ProgramFacts& facts) const;

 private:
  struct Counts {
    size_t edits = 0, forms = 0, conditionals = 0, clones = 0;
  };
  std::map<std::string, Counts> counts_;  // by entity key
  size_t defs_ = 0;
};

// Fails when two units disagree about a file both reach: a non-AoS struct of the plan defined at
// one place with other fields, or edits for one struct that overlap without being identical.
// units[i] was parsed from sources[i], the path the user gave, which the error names.
llvm::Error checkUnitsAgree(const Plan& plan, const ProgramFacts& facts, const std::vector<UnitFacts>& units,
                            const std::vector<std::string>& sources);

}  // namespace relayout::rw
