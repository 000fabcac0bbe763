#include "relayout/analysis/Analyze.h"

#include "AnalyzeModel.h"
#include "SiteMeasures.h"
#include "relayout/analysis/Traffic.h"
#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace relayout {

namespace {

std::string shortHash(const std::string& sha) { return sha.substr(0, 12); }

bool executed(const StructDecision& d) {
  return !d.sites.empty() && d.sites.front().verdict.cls != AccessClass::NotExecuted;
}

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

// "stream.cu:12 for", or "body of kick" for the code outside loops.
std::string loopLabel(const SiteMap& map, const SiteInfo& site) {
  if (site.loop)
    for (const LoopInfo& loop : map.loops)
      if (loop.id == *site.loop)
        return fmt::format("{}:{} {}", llvm::sys::path::filename(loop.location.file).str(), loop.location.line,
                           loop.kind);
  return site.loop ? fmt::format("loop {}", *site.loop) : "body of " + site.function;
}

// Steps 1-4 of the paper's clustering; a single cluster holding every field is plain AoS
// (nothing to split).
void clusterStruct(const StructInfo& info, StructDecision& d, const std::vector<TreeSite>& sites,
                   const LoopCounts& counts) {
  d.clustering = clusterFields(info, buildFieldAccessTree(info, sites, counts));
}

unsigned clusterBytesOf(const StructDecision& d, const std::string& field, unsigned fallback) {
  if (d.clustering)
    for (const FieldCluster& c : d.clustering->clusters)
      if (std::find(c.fields.begin(), c.fields.end(), field) != c.fields.end()) return c.bytes;
  return fallback;
}

std::string reasonFor(const StructDecision& d, AnalyzeMode mode) {
  if (d.sites.empty() || d.sites.front().verdict.cls == AccessClass::NotExecuted)
    return "no executed accesses: left as it is";
  if (mode == AnalyzeMode::Model) return modelReason(d);
  const SiteEvidence& top = d.sites.front();
  std::string reason = fmt::format("weighted sum {:+.4g} ({} favours {}; heaviest site {} {}.{} is {})", d.score,
                                   d.score > 0 ? "> 0" : "<= 0", d.layout == Layout::SoA ? "SoA" : "AoS",
                                   top.site.location.str(), d.name, top.site.field, paperClassName(top.verdict.cls));
  if (d.layout == Layout::Clustered)
    reason += fmt::format("; split into {} aligned clusters by the field access tree",
                          d.clustering->clusters.size());
  return reason;
}

// The tree sites of one site. A helper's site whose counters the profile split per calling kernel
// (kernel_sites) goes under each kernel that called it, with that kernel's executions; its loop
// gets a per-kernel key whose measured Count is the loop's Count times the kernel's share of the
// site's executions. A "?" caller (not instrumented in the unit) keeps the static kernel list.
void addTreeSites(const SiteMap& map, const UnitProfile& unit, const SiteInfo& site, const SiteVerdict& verdict,
                  std::vector<TreeSite>& out, LoopCounts& counts) {
  LoopKey key{map.sourcePath, site.function, site.loop, ""};
  std::vector<const KernelSiteCounters*> split;
  for (const KernelSiteCounters& k : unit.kernelSites)
    if (k.site == site.id && k.counters.laneExecs > 0) split.push_back(&k);
  if (split.empty()) {
    out.push_back({key, loopLabel(map, site), site.kernels, site.field, verdict.executions});
    return;
  }
  const double period = std::max(1u, unit.blockPeriod);
  const double total = std::max<double>(1, double(unit.sites[site.id].laneExecs));
  auto measured = counts.find(key);
  for (const KernelSiteCounters* k : split) {
    double executions = double(k->counters.laneExecs) * period;
    LoopKey perKernel = key;
    perKernel.kernel = k->kernel;  // "?": its own copy, under the static kernel list
    if (measured != counts.end()) {
      double share = measured->second * double(k->counters.laneExecs) / total;
      auto [it, fresh] = counts.try_emplace(perKernel, share);
      if (!fresh) it->second = std::max(it->second, share);
    }
    out.push_back({perKernel, loopLabel(map, site), k->kernel == "?" ? site.kernels : std::vector{k->kernel},
                   site.field, executions});
  }
}

}  // namespace

const char* toString(AnalyzeMode mode) { return mode == AnalyzeMode::Model ? "model" : "paper"; }

llvm::Expected<Analysis> analyzePaper(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                      llvm::StringRef profilePath, const AnalyzeOptions& options) {
  AnalyzeOptions paper = options;
  paper.mode = AnalyzeMode::Paper;
  return analyze(siteMaps, profile, profilePath, paper);
}

llvm::Expected<Analysis> analyze(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                 llvm::StringRef profilePath, const AnalyzeOptions& options) {
  Analysis analysis;
  analysis.mode = options.mode;
  analysis.forced = options.forced.has_value();
  analysis.profileDevice = profile.device;
  analysis.plan.mode = analysis.forced ? "forced" : toString(options.mode);
  if (options.mode == AnalyzeMode::Model && !profile.trace && options.tracePath.empty())
    return fileError(profilePath, "has no trace: model mode replays the accesses that a program instrumented with "
                                  "`relayout instrument --trace` records (or use --mode paper)");
  std::vector<ModelUnit> modelUnits;
  std::map<std::string, StructDecision> decisions;
  std::map<std::string, const StructInfo*> structInfo;
  std::map<std::string, std::vector<TreeSite>> treeSites;
  LoopCounts loopCounts = options.loopCounts;  // given counts win over the profile's

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
    PlanSource planSource{map.sourcePath, map.sourceSha256, {}};
    // The functions whose sites the decisions read: a rewrite may accept this source after edits
    // elsewhere while they still hash the same (checkPlanFitsSiteMap).
    for (const FunctionInfo& f : map.functions)
      if (!f.hash.empty() && std::any_of(map.sites.begin(), map.sites.end(),
                                         [&](const SiteInfo& s) { return s.function == f.name; }))
        planSource.functions.push_back({f.name, f.hash});
    analysis.plan.sources.push_back(std::move(planSource));
    modelUnits.push_back({&file, unit, static_cast<size_t>(unit - profile.units.data())});
    // Measured loop Counts (thread-level body executions), where the profile has them.
    for (const LoopInfo& loop : map.loops)
      if (loop.id < unit->loops.size())
        loopCounts.try_emplace(LoopKey{map.sourcePath, loop.function, loop.id},
                               double(unit->loops[loop.id]) * std::max(1u, unit->blockPeriod));
    for (const StructInfo& s : map.structs) {
      structInfo.try_emplace(s.name, &s);
      decisions.try_emplace(s.name).first->second.name = s.name;
    }
    const std::vector<SiteCode> code = options.ptx.empty() ? std::vector<SiteCode>() : siteCode(map, options.ptx);
    for (const SiteInfo& site : map.sites) {
      // A hand-edited or foreign site map must not crash the analysis: every site names a
      // struct and a field the map declares.
      const StructInfo* owner = map.findStruct(site.structName);
      if (!owner || !owner->field(site.field))
        return fileError(file.path, fmt::format("site {} names {}.{}, which the site map does not declare", site.id,
                                                site.structName, site.field));
      if (site.unread) continue;  // nvcc dropped the load: the compiled code does not touch the field there
      SiteEvidence e{map.sourcePath, site, unit->sites[site.id], classifyPaper(unit->sites[site.id], unit->blockPeriod),
                     unit->blockPeriod, {}};
      if (site.id < code.size()) e.code = code[site.id];
      addTreeSites(map, *unit, site, e.verdict, treeSites[site.structName], loopCounts);
      StructDecision& d = decisions[site.structName];
      d.score += e.verdict.weight;
      d.sites.push_back(std::move(e));
    }
  }

  for (auto& [name, d] : decisions) {
    std::stable_sort(d.sites.begin(), d.sites.end(), [](const SiteEvidence& a, const SiteEvidence& b) {
      return std::fabs(a.verdict.weight) > std::fabs(b.verdict.weight);
    });
    // The paper's decision: a positive sum keeps AoS, a negative one picks SoA.
    d.layout = executed(d) && d.score < 0 ? Layout::SoA : Layout::AoS;
    const StructInfo& info = *structInfo[name];
    d.alignable = alignableToSize(info.size, info.align);
    // The field access tree: the paper's step for an AoS struct; the clustered candidate of model
    // mode and of --layout clustered for every struct.
    bool wantTree = options.mode == AnalyzeMode::Model || options.forced == Layout::Clustered ||
                    (d.layout == Layout::AoS && options.clusters && !options.forced);
    if (executed(d) && wantTree) {
      clusterStruct(info, d, treeSites[name], loopCounts);
      if (options.mode == AnalyzeMode::Paper && d.layout == Layout::AoS && options.clusters &&
          d.clustering->clusters.size() > 1)
        d.layout = Layout::Clustered;
    }
    for (SiteEvidence& e : d.sites) {
      e.sectors.aos = measuredSectors(e.counters, e.blockPeriod);
      e.sectors.soa = predictSectors(e.counters, e.verdict, e.blockPeriod, e.site.size, e.site.size);
      e.sectors.aosoa = e.sectors.soa;
      e.sectors.aligned = e.sectors.aos;
      e.sectors.clustered = predictSectors(e.counters, e.verdict, e.blockPeriod, e.site.size,
                                           clusterBytesOf(d, e.site.field, info.size));
      d.sectors.add(e.sectors);
    }
  }

  if (options.mode == AnalyzeMode::Model)
    if (llvm::Error err = applyModel(analysis, decisions, structInfo, modelUnits, profile, profilePath, options))
      return std::move(err);

  for (auto& [name, d] : decisions) {
    const StructInfo& info = *structInfo[name];
    d.info = info;
    auto refused = options.refusedStructs.find(name);
    const bool undecided = refused != options.refusedStructs.end() && !options.forced;
    if (options.mode == AnalyzeMode::Paper && executed(d)) {
      d.weighed = {Layout::AoS};
      if (d.clustering && d.clustering->clusters.size() > 1) d.weighed.push_back(Layout::Clustered);
      d.weighed.push_back(Layout::SoA);
    }
    if (undecided) {
      d.layout = Layout::AoS;
      d.clustering.reset();
      d.weighed.clear();
    }
    if (options.forced) forceDecision(d, *options.forced);
    StructPlan sp;
    sp.name = name;
    sp.layout = d.layout;
    sp.score = d.score;
    for (const FieldInfo& f : info.fields) sp.fields.push_back(f.name);
    if (d.layout == Layout::SoA) sp.clusters = soaClusters(sp.fields);
    if (d.layout == Layout::SoA && d.transposed) sp.transpose = d.transposeWidth;
    if (d.layout == Layout::Clustered)
      for (const FieldCluster& c : d.clustering->clusters) sp.clusters.push_back({c.name, c.fields, c.paddingBytes});
    sp.reason = options.forced ? fmt::format("forced by --layout {}{}", toString(*options.forced),
                                             d.layout == *options.forced ? "" : forcedFallbackNote(d, *options.forced))
                     : undecided ? "not decided: the profile is out of date for it: " + refused->second
                                 : reasonFor(d, options.mode);
    nlohmann::json top = nlohmann::json::array();
    for (size_t i = 0; i < d.sites.size() && i < 20; ++i) top.push_back(evidenceJson(d.sites[i]));
    sp.details = {{"sites", top}, {"site_count", d.sites.size()},
                  {"predicted_sectors", {{"aos", d.sectors.aos}, {"soa", d.sectors.soa}}},
                  {"sectors_source", options.mode == AnalyzeMode::Model ? "model" : "paper"}};
    if (d.clustering) sp.details["predicted_sectors"]["clustered"] = d.sectors.clustered;
    if (options.mode == AnalyzeMode::Model) addModelDetails(d, sp.details);
    analysis.plan.structs.push_back(std::move(sp));
    analysis.structs.push_back(std::move(d));
  }
  return analysis;
}

}  // namespace relayout
