#include "relayout/analysis/Analyze.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace relayout {

namespace {

std::string shortHash(const std::string& sha) { return sha.substr(0, 12); }

nlohmann::json evidenceJson(const SiteEvidence& e) {
  return {{"source", e.source},
          {"site", e.site.id},
          {"location", e.site.location.str()},
          {"field", e.site.field},
          {"access", toString(e.site.access)},
          {"kernels", e.site.kernels},
          {"class", toString(e.verdict.cls)},
          {"n", e.verdict.n},
          {"executions", e.verdict.executions},
          {"weight", e.verdict.weight},
          {"sectors_per_warp",
           e.counters.warpExecs ? double(e.counters.sectors) / double(e.counters.warpExecs) : 0.0}};
}

std::string reasonFor(const StructDecision& d) {
  if (d.sites.empty() || d.sites.front().verdict.cls == AccessClass::NotExecuted)
    return "no executed accesses: left as it is";
  const SiteEvidence& top = d.sites.front();
  return fmt::format("weighted sum {:+.4g} ({} favours {}; heaviest site {} {}.{} is {})", d.score,
                     d.score > 0 ? "> 0" : "<= 0", d.layout == Layout::AoS ? "AoS" : "SoA",
                     top.site.location.str(), d.name, top.site.field, toString(top.verdict.cls));
}

}  // namespace

llvm::Expected<Analysis> analyzePaper(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                      llvm::StringRef profilePath) {
  Analysis analysis;
  analysis.profileDevice = profile.device;
  analysis.plan.mode = "paper";
  std::map<std::string, StructDecision> decisions;
  std::map<std::string, const StructInfo*> structInfo;

  for (const SiteMapFile& file : siteMaps) {
    const SiteMap& map = file.map;
    const UnitProfile* unit = profile.findUnit(map.sourceSha256);
    if (!unit) {
      std::string recorded;
      for (const UnitProfile& u : profile.units) recorded += fmt::format(" {} ({})", u.source, shortHash(u.sha256));
      return fileError(profilePath, fmt::format("has no data for {} as it is now (sha256 {}); it was recorded "
                                                "from:{} -- profile the current sources again",
                                                map.sourcePath, shortHash(map.sourceSha256),
                                                recorded.empty() ? " no instrumented units" : recorded));
    }
    if (unit->sites.size() != map.sites.size())
      return fileError(profilePath, fmt::format("has {} sites for {} but the site map {} has {}", unit->sites.size(),
                                                map.sourcePath, file.path, map.sites.size()));
    analysis.plan.sources.push_back({map.sourcePath, map.sourceSha256});
    for (const StructInfo& s : map.structs) {
      structInfo.try_emplace(s.name, &s);
      decisions.try_emplace(s.name).first->second.name = s.name;
    }
    for (const SiteInfo& site : map.sites) {
      SiteEvidence e{map.sourcePath, site, unit->sites[site.id], classifyPaper(unit->sites[site.id], unit->blockPeriod)};
      StructDecision& d = decisions[site.structName];
      d.score += e.verdict.weight;
      d.sites.push_back(std::move(e));
    }
  }

  for (auto& [name, d] : decisions) {
    std::stable_sort(d.sites.begin(), d.sites.end(), [](const SiteEvidence& a, const SiteEvidence& b) {
      return std::fabs(a.verdict.weight) > std::fabs(b.verdict.weight);
    });
    bool executed = !d.sites.empty() && d.sites.front().verdict.cls != AccessClass::NotExecuted;
    // The paper's decision: a positive sum keeps AoS, a negative one picks SoA.
    d.layout = executed && d.score < 0 ? Layout::SoA : Layout::AoS;

    StructPlan sp;
    sp.name = name;
    sp.layout = d.layout;
    sp.score = d.score;
    for (const FieldInfo& f : structInfo[name]->fields) sp.fields.push_back(f.name);
    if (d.layout == Layout::SoA) sp.clusters = soaClusters(sp.fields);
    sp.reason = reasonFor(d);
    nlohmann::json top = nlohmann::json::array();
    for (size_t i = 0; i < d.sites.size() && i < 20; ++i) top.push_back(evidenceJson(d.sites[i]));
    sp.details = {{"sites", top}, {"site_count", d.sites.size()}};
    analysis.plan.structs.push_back(std::move(sp));
    analysis.structs.push_back(std::move(d));
  }
  return analysis;
}

}  // namespace relayout
