#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace relayout {

static llvm::Error addUnit(UnitProfile& into, const UnitProfile& unit, const std::string& path) {
  if (into.sites.size() != unit.sites.size() || into.blockPeriod != unit.blockPeriod)
    return fileError(path, fmt::format("unit {} has {} sites sampled 1 block in {}, but the profiles before it had "
                                       "{} sites sampled 1 in {}: were they built from the same sources and flags?",
                                       unit.source, unit.sites.size(), unit.blockPeriod, into.sites.size(),
                                       into.blockPeriod));
  for (size_t i = 0; i < unit.sites.size(); ++i) into.sites[i] += unit.sites[i];
  for (const KernelSiteCounters& k : unit.kernelSites) {
    auto same = std::find_if(into.kernelSites.begin(), into.kernelSites.end(),
                             [&](const KernelSiteCounters& m) { return m.site == k.site && m.kernel == k.kernel; });
    if (same == into.kernelSites.end())
      into.kernelSites.push_back(k);
    else
      same->counters += k.counters;
  }
  for (const KernelBlocks& k : unit.kernelBlocks) {
    auto same = std::find_if(into.kernelBlocks.begin(), into.kernelBlocks.end(),
                             [&](const KernelBlocks& m) { return m.kernel == k.kernel; });
    if (same == into.kernelBlocks.end()) {
      into.kernelBlocks.push_back(k);
    } else {
      same->blocks += k.blocks;
      same->classified += k.classified;
    }
  }
  if (into.loops.size() < unit.loops.size()) into.loops.resize(unit.loops.size(), 0);
  for (size_t i = 0; i < unit.loops.size(); ++i) into.loops[i] += unit.loops[i];
  return llvm::Error::success();
}

llvm::Expected<Profile> mergeProfiles(const std::vector<std::pair<std::string, Profile>>& profiles) {
  if (profiles.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no profiles to merge");
  Profile merged;
  const Profile& first = profiles.front().second;
  merged.device = first.device;
  merged.created = first.created;
  merged.command = first.command;
  merged.trace = first.trace;
  std::map<std::string, size_t> kernelIndex;
  for (const auto& [path, profile] : profiles) {
    merged.mergedFrom.push_back(path);
    if (profile.device != merged.device && merged.device.find(profile.device) == std::string::npos)
      merged.device += "; " + profile.device;
    for (const UnitProfile& unit : profile.units) {
      UnitProfile* into = nullptr;
      for (UnitProfile& u : merged.units)
        if (u.sha256 == unit.sha256) into = &u;
      if (!into) {
        merged.units.push_back(unit);
        continue;
      }
      if (llvm::Error err = addUnit(*into, unit, path)) return std::move(err);
    }
    for (const KernelProfile& k : profile.kernels) {
      auto [it, inserted] = kernelIndex.try_emplace(k.mangled, merged.kernels.size());
      if (inserted) {
        merged.kernels.push_back(k);
        continue;
      }
      merged.kernels[it->second].launches += k.launches;
      merged.kernels[it->second].totalNs += k.totalNs;
    }
  }
  return merged;
}

llvm::Expected<Profile> mergeProfileFiles(const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, Profile>> profiles;
  for (const std::string& path : paths) {
    auto profile = Profile::load(path);
    if (!profile) return profile.takeError();
    profiles.emplace_back(path, std::move(*profile));
  }
  return mergeProfiles(profiles);
}

}  // namespace relayout
