#include "relayout/core/ProfileMatch.h"

#include "relayout/core/Files.h"
#include "relayout/core/Sampling.h"
#include "relayout/core/Schema.h"

#include <fmt/format.h>
#include <llvm/Support/Path.h>

#include <algorithm>

namespace relayout {

namespace {

std::string shortHash(const std::string& hash) { return hash.substr(0, 12); }

// The unit recorded from the same source file: the same path, or else the only unit whose file
// name is the same (the profile may have been recorded in another folder).
const UnitProfile* unitOfSamePath(const Profile& profile, const std::string& path) {
  for (const UnitProfile& u : profile.units)
    if (u.source == path) return &u;
  const UnitProfile* found = nullptr;
  for (const UnitProfile& u : profile.units)
    if (llvm::sys::path::filename(u.source) == llvm::sys::path::filename(path)) {
      if (found) return nullptr;
      found = &u;
    }
  return found;
}

// A function's current sites in position order.
std::vector<const SiteInfo*> sitesOf(const SiteMap& map, const std::string& function) {
  std::vector<const SiteInfo*> sites;
  for (const SiteInfo& s : map.sites)
    if (s.function == function) sites.push_back(&s);
  std::stable_sort(sites.begin(), sites.end(),
                   [](const SiteInfo* a, const SiteInfo* b) { return a->position < b->position; });
  return sites;
}

// Where a current site lies in its struct, as the runtime records it (RelayoutSiteInfo).
SiteLayout layoutOf(const SiteMap& map, const SiteInfo& site) {
  SiteLayout layout{0, 0, site.offset};
  if (const StructInfo* s = map.findStruct(site.structName)) {
    layout.structSize = s->size;
    while (layout.field < s->fields.size() && s->fields[layout.field].name != site.field) ++layout.field;
  }
  return layout;
}

bool executed(const UnitProfile& unit, const ProfiledFunction& f) {
  return std::any_of(f.sites.begin(), f.sites.end(), [&](unsigned id) { return unit.sites[id].warpExecs > 0; });
}

// The recorded unit's counters carried over to the edited source's site ids, function by
// function. Loop counters are not carried (the profile does not say which loops a function
// held): the analysis derives loop counts from the site counters instead.
llvm::Expected<UnitProfile> carryOver(const UnitProfile& recorded, const SiteMap& map, llvm::StringRef profilePath,
                                      UnitMatch& match) {
  UnitProfile carried = recorded;
  carried.sha256 = map.sourceSha256;
  carried.sites.assign(map.sites.size(), SiteCounters{});
  carried.loops.clear();
  carried.kernelSites.clear();
  carried.functions.clear();
  std::map<unsigned, unsigned> currentOf;  // recorded site id -> current site id
  std::vector<std::string> differing;      // for the error when nothing matches
  size_t matched = 0;

  for (const FunctionInfo& function : map.functions) {
    std::vector<const SiteInfo*> sites = sitesOf(map, function.name);
    if (sites.empty()) continue;
    auto old = std::find_if(recorded.functions.begin(), recorded.functions.end(),
                            [&](const ProfiledFunction& f) { return f.name == function.name; });
    const bool same = old != recorded.functions.end() && !function.hash.empty() && old->hash == function.hash &&
                      old->sites.size() == sites.size();
    ProfiledFunction now{function.name, function.hash, {}, {}};
    for (const SiteInfo* s : sites) now.sites.push_back(s->id);
    carried.functions.push_back(now);
    if (!same) {
      std::string what = old == recorded.functions.end()
                             ? function.name + " (new)"
                             : fmt::format("{} (hash {}, recorded {})", function.name, shortHash(function.hash),
                                           shortHash(old->hash));
      match.changedFunctions.push_back(what);
      differing.push_back(what);
      // Code the profile did not see run (new) or saw run differently (changed and executed)
      // cannot decide the structs it touches.
      if (old == recorded.functions.end() || executed(recorded, *old))
        for (const SiteInfo* s : sites)
          match.refusedStructs.try_emplace(
              s->structName, fmt::format("accessed in {}, which changed since the profile was recorded", what));
      continue;
    }
    ++matched;
    for (size_t k = 0; k < sites.size(); ++k) {
      const SiteInfo& site = *sites[k];
      const unsigned was = old->sites[k];
      if (!old->layouts.empty() && !(old->layouts[k] == layoutOf(map, site)))
        match.refusedStructs.try_emplace(
            site.structName, fmt::format("its definition changed since the profile was recorded (site {} of {} now "
                                         "lies at byte {} of {}, was at byte {} of {})",
                                         site.location.str(), function.name, site.offset,
                                         layoutOf(map, site).structSize, old->layouts[k].offset,
                                         old->layouts[k].structSize));
      carried.sites[site.id] = recorded.sites[was];
      currentOf[was] = site.id;
    }
  }
  for (const ProfiledFunction& f : recorded.functions)
    if (std::none_of(map.functions.begin(), map.functions.end(),
                     [&](const FunctionInfo& now) { return now.name == f.name; }) &&
        !f.sites.empty())
      differing.push_back(f.name + " (removed)");
  if (matched == 0) {
    std::string list;
    for (const std::string& d : differing) list += (list.empty() ? "" : ", ") + d;
    return fileError(profilePath, fmt::format("has no data for {} as it is now (sha256 {}): no function of it is as "
                                              "it was when the profile was recorded ({}) -- profile the current "
                                              "sources again",
                                              map.sourcePath, shortHash(map.sourceSha256),
                                              list.empty() ? "no functions with sites" : list));
  }
  for (const KernelSiteCounters& k : recorded.kernelSites)
    if (auto it = currentOf.find(k.site); it != currentOf.end())
      carried.kernelSites.push_back({it->second, k.kernel, k.counters});
  return carried;
}

}  // namespace

bool ProfileForAnalysis::sameSources() const {
  return std::all_of(units.begin(), units.end(), [](const UnitMatch& m) { return m.sameSource; });
}

std::map<std::string, std::string> ProfileForAnalysis::refusedStructs() const {
  std::map<std::string, std::string> all;
  for (const UnitMatch& m : units) all.insert(m.refusedStructs.begin(), m.refusedStructs.end());
  return all;
}

llvm::Expected<ProfileForAnalysis> matchProfile(Profile profile, llvm::StringRef profilePath,
                                                const std::vector<const SiteMap*>& maps) {
  ProfileForAnalysis result;
  const Profile recorded = profile;  // carried units read from the counters as recorded
  for (const SiteMap* map : maps) {
    UnitMatch match;
    const UnitProfile* unit = recorded.findUnit(map->sourceSha256);
    if (!unit) {
      unit = unitOfSamePath(recorded, map->sourcePath);
      if (!unit || unit->functions.empty()) {
        std::string units;
        for (const UnitProfile& u : recorded.units) units += fmt::format(" {} ({})", u.source, shortHash(u.sha256));
        return fileError(profilePath,
                         fmt::format("has no data for {} as it is now (sha256 {}); it was recorded from:{}{} -- "
                                     "profile the current sources again",
                                     map->sourcePath, shortHash(map->sourceSha256),
                                     units.empty() ? " no instrumented units" : units,
                                     unit ? " (without function hashes, so edits cannot be matched)" : ""));
      }
      match.sameSource = false;
    }
    match.unitIndex = static_cast<size_t>(unit - recorded.units.data());
    UnitProfile& into = profile.units[match.unitIndex];
    if (!match.sameSource) {
      auto carried = carryOver(*unit, *map, profilePath, match);
      if (!carried) return carried.takeError();
      into = std::move(*carried);
    } else if (unit->sites.size() != map->sites.size()) {
      return fileError(profilePath, fmt::format("has {} sites for {} but its site map has {}", unit->sites.size(),
                                                map->sourcePath, map->sites.size()));
    } else if (!unit->loops.empty() && unit->loops.size() != map->loops.size()) {
      // Loop counts are indexed by the site map's loop ids: another count of them is another unit.
      return documentError(profilePath, jsonPointer({"units", match.unitIndex, "loops"}),
                           fmt::format("{} loop counts (one per loop of the site map of {}) or none", map->loops.size(),
                                       map->sourcePath),
                           shownValue(nlohmann::json(unit->loops)));
    }
    const bool scaled = std::any_of(result.units.begin(), result.units.end(),
                                    [&](const UnitMatch& m) { return m.unitIndex == match.unitIndex; });
    if (!scaled) {
      if (std::string problem = samplingProblem(into, *map); !problem.empty())
        return documentError(profilePath, jsonPointer({"units", match.unitIndex, "kernel_blocks"}),
                             "blocks classified wherever a kernel's sites have counts", problem);
      scaleToWholeRun(into, *map);  // sampled blocks and launches stand for the whole run
    }
    result.units.push_back(std::move(match));
  }
  result.profile = std::move(profile);
  return result;
}

llvm::Expected<ProfileForAnalysis> loadProfileForAnalysis(llvm::StringRef profilePath,
                                                          const std::vector<const SiteMap*>& maps) {
  auto profile = Profile::load(profilePath);
  if (!profile) return profile.takeError();
  return matchProfile(std::move(*profile), profilePath, maps);
}

}  // namespace relayout
