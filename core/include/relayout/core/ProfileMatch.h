// Reading a profile for analysis: the one way analyze and optimize get counters. Each site map's
// unit is found in the profile (same source hash; after edits, same source path and per-function
// token hashes), its counters are re-indexed to the site map's site ids and scaled to the whole
// run (Sampling.h). `relayout merge` reads profiles with Profile::load and keeps raw counts.
// docs/formats.md, "Profiles after edits".
#pragma once

#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <map>
#include <string>
#include <vector>

namespace relayout {

// How one site map's unit was found in the profile.
struct UnitMatch {
  size_t unitIndex = 0;     // into Profile::units (the index the trace's records use)
  bool sameSource = true;   // same sha256: every counter as recorded
  // Edited source only: functions of the site map whose sites got no counters, as
  // "integrate (hash 0123456789ab, recorded 89abcdef0123)" or "kick (new)".
  std::vector<std::string> changedFunctions;
  // Structs the profile cannot decide any more, with the reason: executed sites in changed or
  // new functions, or a definition that changed (a site of an unchanged function moved).
  std::map<std::string, std::string> refusedStructs;
};

struct ProfileForAnalysis {
  // The profile with each matched unit replaced by its counters for the whole run, indexed by
  // its site map's site ids, and its sha256 set to the site map's (Profile::findUnit finds it).
  Profile profile;
  std::vector<UnitMatch> units;  // one per site map, in the order given

  // Whether every unit was recorded from the sources as they are (the trace's site ids then
  // name the site maps' sites).
  bool sameSources() const;
  // Every refused struct with its reason, over all units.
  std::map<std::string, std::string> refusedStructs() const;
};

// Matches `profile` to the site maps; errors name `profilePath`: no unit for a source, a unit of
// the same path where no function still matches (listing those that differ), site counts that
// disagree.
llvm::Expected<ProfileForAnalysis> matchProfile(Profile profile, llvm::StringRef profilePath,
                                                const std::vector<const SiteMap*>& maps);

// Profile::load, then matchProfile.
llvm::Expected<ProfileForAnalysis> loadProfileForAnalysis(llvm::StringRef profilePath,
                                                          const std::vector<const SiteMap*>& maps);

}  // namespace relayout
