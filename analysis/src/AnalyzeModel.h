// Internal to analysis/: the model-mode and forced-layout steps of analyze() (Analyze.cpp).
#pragma once

#include "relayout/analysis/Analyze.h"

#include <map>
#include <string>
#include <vector>

namespace relayout {

// A site map with the profile unit recorded from it (units[unitIndex]).
struct ModelUnit {
  const SiteMapFile* file = nullptr;
  const UnitProfile* unit = nullptr;
  size_t unitIndex = 0;
};

// Opens and replays the profile's trace, scales each site's replayed counts to its executions,
// replaces the sectors of every site and struct with the replayed ones and decides each executed
// struct by the least predicted sectors among the layouts the rewriter can emit.
llvm::Error applyModel(Analysis& analysis, std::map<std::string, StructDecision>& decisions,
                       const std::map<std::string, const StructInfo*>& structInfo, const std::vector<ModelUnit>& units,
                       const Profile& profile, llvm::StringRef profilePath, const AnalyzeOptions& options);

// One line: the predicted sectors per layout and the pick.
std::string modelReason(const StructDecision& d);
// Model-mode numbers for the plan's details (docs/formats.md, "Plan").
void addModelDetails(const StructDecision& d, nlohmann::json& details);

// --layout: sets the layout (clustered: the tree's clusters; AoS where there are none to split).
void forceDecision(StructDecision& d, Layout layout);
// Why a forced layout could not be applied as asked ("" when it was).
std::string forcedFallbackNote(const StructDecision& d, Layout forced);

}  // namespace relayout
