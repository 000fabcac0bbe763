// Model mode (docs/analysis.md, "Model mode"): the trace replayed against each struct's candidate
// layouts, scaled to the profile's execution counts, decides by predicted sectors.
#include "AnalyzeModel.h"

#include "relayout/analysis/Candidates.h"
#include "relayout/analysis/Traffic.h"
#include "relayout/core/Files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace relayout {

namespace {

LayoutSectors fromModel(const double (&values)[kModelLayouts]) {
  LayoutSectors s;
  s.aos = values[size_t(ModelLayout::AoS)];
  s.soa = values[size_t(ModelLayout::SoA)];
  s.aosoa = values[size_t(ModelLayout::AoSoA)];
  s.clustered = values[size_t(ModelLayout::Clustered)];
  s.aligned = s.aos;  // the same bytes at the same offsets
  return s;
}



// The field lists of a clustering's clusters, as the layout mapping and the replay take them.
std::vector<std::vector<std::string>> fieldsOfClusters(const Clustering& clustering) {
  std::vector<std::vector<std::string>> out;
  for (const FieldCluster& c : clustering.clusters) out.push_back(c.fields);
  return out;
}

// Whether the clustered layout is a candidate of its own: not where every accessed field is in an
// array of its own (the tree's single-field clusters, or what taking clusters apart left), which is
// SoA under another name; with --keep-tree-clusters, wherever the tree gives two or more clusters,
// as before clusters were checked.
bool clusteredCandidate(const StructDecision& d, const AnalyzeOptions& options) {
  if (!hasClusters(d) || !options.checkClusters) return hasClusters(d);
  return std::any_of(d.clustering->clusters.begin(), d.clustering->clusters.end(),
                     [](const FieldCluster& c) { return c.fields.size() > 1 && c.count > 0; });
}

bool executed(const StructDecision& d) {
  return !d.sites.empty() && d.sites.front().verdict.cls != AccessClass::NotExecuted;
}

void addKernel(StructDecision& d, const std::string& kernel, const LayoutSectors& s) {
  for (KernelSectors& k : d.kernels)
    if (k.kernel == kernel) return k.sectors.add(s);
  d.kernels.push_back({kernel, s});
}

// Per kernel, the thread-level executions the site's records of that kernel stand for: the
// kernel's own counters where the profile split them (kernel_sites), the rest of the site's
// lane_execs x block period spread over the other traced kernels by their replayed lanes.
std::vector<double> laneTargets(const ReplayResult& replay, size_t unitIndex, const UnitProfile& unit, unsigned site,
                                unsigned tracePeriod) {
  const size_t kernels = replay.kernels.size();
  std::vector<double> replayed(kernels), target(kernels, -1);
  for (size_t k = 0; k < kernels; ++k) replayed[k] = replay.at(unitIndex, site, k).lanes;
  const double period = std::max(1u, unit.blockPeriod);
  const double total = double(unit.sites[site].laneExecs) * period;
  if (total == 0) {  // counters say it never ran, the trace says otherwise: the trace's sampling
    for (size_t k = 0; k < kernels; ++k) target[k] = replayed[k] * std::max(1u, tracePeriod);
    return target;
  }
  double matched = 0;
  for (const KernelSiteCounters& ks : unit.kernelSites) {
    if (ks.site != site || ks.kernel == "?") continue;
    // Launches named by kernel id carry the site map's name itself; sameKernel's looser match
    // serves profiles without kernel ids (launchKernel).
    for (size_t k = 0; k < kernels; ++k)
      if (replayed[k] > 0 && sameKernel(ks.kernel, replay.kernels[k])) {
        target[k] = std::max(0.0, target[k]) + double(ks.counters.laneExecs) * period;
        matched += double(ks.counters.laneExecs) * period;
        break;
      }
  }
  double rest = std::max(0.0, total - matched), unmatchedLanes = 0, allLanes = 0;
  for (size_t k = 0; k < kernels; ++k) {
    allLanes += replayed[k];
    if (target[k] < 0) unmatchedLanes += replayed[k];
  }
  for (size_t k = 0; k < kernels; ++k) {
    if (unmatchedLanes > 0) {
      if (target[k] < 0) target[k] = rest * replayed[k] / unmatchedLanes;
    } else if (allLanes > 0) {
      target[k] = std::max(0.0, target[k]) + rest * replayed[k] / allLanes;
    }
    target[k] = std::max(0.0, target[k]);
  }
  return target;
}

// The site map's name of a traced launch's kernel: from the kernel id the GPU recorded for a unit
// with a site map. Fallback for profiles written before kernel ids were carried (the committed
// ones): CUPTI's demangled name with its return type and parameters cut off, matched to site map
// names by sameKernel.
std::string launchKernel(const TracedLaunch& launch, const std::vector<ReplayUnit>& units) {
  for (const auto& [unit, kernel] : launch.unitKernels)
    if (unit < units.size() && units[unit].map && kernel < units[unit].map->kernels.size())
      return units[unit].map->kernels[kernel];
  return kernelNameFromDemangled(launch.kernel);
}

// What one site's accesses are predicted to cost under a layout (the decision's measure: sectors
// + requested lines x kL1WavefrontWeight + requests x kRequestWeight, for the executions that issue
// any); a site the trace missed, by its estimates (its sectors, taken as coalesced: four to a line).
double siteCost(const SiteEvidence& e, Layout layout) {
  // Sites merged into one vector access request its sectors once between them.
  const double merged = std::min(1.0, e.requests.under(layout) / std::max(1e-9, e.requests.under(Layout::SoA)));
  // The estimates count each field's sectors as if requested alone: fields that one vector access
  // carries (an aligned record's re and im written by one st.v2) share theirs, as in the replay.
  if (!e.replayed) return merged * e.sectors.under(layout) * (1 + kL1WavefrontWeight / 4);
  return e.issued * (fromModel(e.model.traffic).under(layout) +
                     kL1WavefrontWeight * merged * fromModel(e.model.lines).under(layout) +
                     kRequestWeight * e.model.warps * e.requests.under(layout));
}

// AoSoA's cost of a site: not a Layout of the plan, so spelled out here as siteCost does.
double aosoaCost(const SiteEvidence& e) {
  if (!e.replayed) return e.sectors.aosoa * (1 + kL1WavefrontWeight / 4);
  const size_t l = size_t(ModelLayout::AoSoA);
  return e.issued * (e.model.traffic[l] + kL1WavefrontWeight * e.model.lines[l] +
                     kRequestWeight * e.model.warps * e.requests.aosoa);
}

// Whether nvcc may carry sites `a` and `b` of one struct in one access: they reach the same element
// in the same code (the site map's `element`, from the source). Site maps without it: the same
// function and loop, run as often — which sampled counts, drawn site by site, tell only roughly.
bool mayMerge(const SiteEvidence& a, const SiteEvidence& b) {
  if (a.source != b.source || a.site.function != b.site.function || a.site.loop != b.site.loop) return false;
  if (!a.site.element.empty() || !b.site.element.empty()) return a.site.element == b.site.element;
  const double execs = std::max(a.verdict.executions, b.verdict.executions);
  return std::fabs(a.verdict.executions - b.verdict.executions) <= 0.01 * execs;
}

// Each site's requests per execution under each layout, and the share of its executions that
// issue any. AoS: what the original's PTX shows on the site's line, else what its struct allows;
// the others: what their arrays allow (Ptx.h, predictedRequests), with the struct's sites that
// mayMerge accepts loaded together. A site nvcc hoisted out of its loop issues only on executions whose
// elements differ from the warp's previous execution of it (the trace's repeats): the same in every
// layout, as the rewrite keeps the no-alias facts of the original (restrict locals).
void assignRequests(const StructInfo& info, StructDecision& d) {
  std::vector<MappedField> fields = mappedFields(info);
  const std::vector<std::vector<std::string>> clusters =
      hasClusters(d) ? fieldsOfClusters(*d.clustering) : std::vector<std::vector<std::string>>{};
  const LayoutMapping aos = LayoutMapping::aos(fields, info.size, info.align), soa = LayoutMapping::soa(fields),
                      clustered = clusters.empty() ? aos : LayoutMapping::clustered(fields, clusters);
  // The record aligned to its size: what nvcc can merge of the accesses together when it knows that.
  const LayoutMapping aligned = LayoutMapping::aos(fields, info.size, d.alignable ? info.size : info.align);
  for (SiteEvidence& e : d.sites) {
    std::vector<const SiteInfo*> together;
    for (const SiteEvidence& t : d.sites)
      if (mayMerge(e, t)) together.push_back(&t.site);
    e.requests.aos = e.code && e.code->found ? e.code->requests : predictedRequests(aos, info, e.site, together);
    e.requests.soa = predictedRequests(soa, info, e.site, together);
    e.requests.aosoa = e.requests.soa;
    e.requests.clustered = predictedRequests(clustered, info, e.site, together);
    // Never more than the original's PTX shows: aligning only lets nvcc merge more.
    e.requests.aligned = std::min(e.requests.aos, predictedRequests(aligned, info, e.site, together));
    const double repeats = e.model.warps > 0 ? std::min(1.0, e.model.repeats / e.model.warps) : 0;
    e.issued = e.code ? 1 - e.code->hoisted * repeats : 1;
  }
}

// The tree groups fields whose loops run equally often; a group pays for it in padding and in
// sectors its warps fetch for the other fields. A multi-field cluster stays only where the replay
// predicts its fields' accesses cost less together than each field in an array of its own (its
// sites' SoA numbers: under both, no other field shares their arrays), by at least kClusterMinGain
// of the struct's cost; otherwise it is taken apart and its sites count their SoA numbers as
// clustered. Count ratios near the tree's tolerance, which a sampled profile may see on either
// side, then stop deciding a grouping whose effect the replay cannot tell from noise
// (docs/analysis.md, "Model mode").
void takeApartUnprofitableClusters(const StructInfo& info, StructDecision& d,
                                   std::vector<std::vector<std::pair<std::string, ModelCounts>>>& byKernel) {
  const std::vector<FieldCluster>& clusters = d.clustering->clusters;
  double structCost = 0;  // every field in an array of its own
  for (const SiteEvidence& e : d.sites) structCost += siteCost(e, Layout::SoA);
  std::set<size_t> apart;
  std::vector<std::pair<double, double>> costs;  // together, apart, per cluster taken apart
  for (size_t c = 0; c < clusters.size(); ++c) {
    if (clusters[c].fields.size() < 2 || clusters[c].count == 0) continue;
    double together = 0, separate = 0;
    for (const SiteEvidence& e : d.sites) {
      if (std::find(clusters[c].fields.begin(), clusters[c].fields.end(), e.site.field) == clusters[c].fields.end())
        continue;
      together += siteCost(e, Layout::Clustered);
      separate += siteCost(e, Layout::SoA);
    }
    if (separate - together > 0 && separate - together >= kClusterMinGain * structCost) continue;
    apart.insert(c);
    costs.emplace_back(together, separate);
  }
  if (apart.empty()) return;
  std::set<std::string> fieldsApart;
  for (size_t c : apart) fieldsApart.insert(clusters[c].fields.begin(), clusters[c].fields.end());
  Clustering split = splitClusters(info, *d.clustering, apart);
  for (size_t i = 0; i < split.apart.size(); ++i)
    split.apart[i].together = costs[i].first, split.apart[i].apart = costs[i].second;
  d.clustering = std::move(split);
  auto asSoA = [](ModelCounts& m) {
    for (double* column : {m.sectors, m.lines, m.traffic})
      column[size_t(ModelLayout::Clustered)] = column[size_t(ModelLayout::SoA)];
  };
  for (size_t i = 0; i < d.sites.size(); ++i) {
    SiteEvidence& e = d.sites[i];
    if (!fieldsApart.count(e.site.field)) continue;
    e.sectors.clustered = e.sectors.soa;
    asSoA(e.model);
    for (auto& [kernel, one] : byKernel[i]) asSoA(one);
  }
}

// Which profile unit (with its site map) holds each site, by (source, site id).
using SiteUnits = std::map<std::pair<std::string, unsigned>, const ModelUnit*>;

// A struct's sites priced from a replay: each site's replayed counts scaled to the profile's
// executions, its requests, the tree's clusters checked, and the struct's sectors and cost per layout.
void priceStruct(const StructInfo& info, StructDecision& d, const ReplayResult& replay, const SiteUnits& unitOf,
                 unsigned tracePeriod, const AnalyzeOptions& options) {
  d.sectors = {};
  d.requested = {};
  d.kernels.clear();
  d.measuredAoS = 0;
  double replayedExecs = 0, allExecs = 0;
  // Per site, its replayed counts per traced kernel, scaled to the kernel's executions.
  std::vector<std::vector<std::pair<std::string, ModelCounts>>> byKernel(d.sites.size());
  for (size_t i = 0; i < d.sites.size(); ++i) {
    SiteEvidence& e = d.sites[i];
    e.model = {};  // priced again (a transposed replay): from this replay alone
    d.measuredAoS += measuredSectors(e.counters, e.blockPeriod);
    allExecs += e.verdict.executions;
    auto unit = unitOf.find({e.source, e.site.id});
    const ModelUnit* m = unit == unitOf.end() ? nullptr : unit->second;
    std::vector<double> targets =
        m ? laneTargets(replay, m->unitIndex, *m->unit, e.site.id, tracePeriod) : std::vector<double>();
    for (size_t k = 0; k < targets.size(); ++k) {
      const ModelCounts& cell = replay.at(m->unitIndex, e.site.id, k);
      if (cell.lanes == 0 || targets[k] == 0) continue;
      double scale = targets[k] / cell.lanes;
      e.model.add(cell, scale);
      ModelCounts one;
      one.add(cell, scale);
      byKernel[i].emplace_back(replay.kernels[k], one);
    }
    e.replayed = e.model.lanes > 0;
    if (e.replayed) e.sectors = fromModel(e.model.traffic);
  }
  assignRequests(info, d);
  if (hasClusters(d) && options.clusters && options.checkClusters && !options.forced) {
    takeApartUnprofitableClusters(info, d, byKernel);
    assignRequests(info, d);
  }
  for (size_t i = 0; i < d.sites.size(); ++i) {
    SiteEvidence& e = d.sites[i];
    for (const auto& [kernel, one] : byKernel[i]) addKernel(d, kernel, fromModel(one.traffic));
    if (e.replayed) {
      replayedExecs += e.verdict.executions;
      d.requested.add(fromModel(e.model.sectors));
    } else if (e.verdict.cls != AccessClass::NotExecuted) {
      // Executed but not in the trace (dropped, or only in launches past --trace-launches):
      // the paper-mode estimates stand in (already in e.sectors).
      addKernel(d, "(not traced)", e.sectors);
      d.requested.add(e.sectors);
    }
    d.sectors.add(e.sectors);
  }
  d.replayedShare = allExecs > 0 ? replayedExecs / allExecs : 0;
  if (!hasClusters(d)) d.sectors.clustered = d.sectors.aos, d.requested.clustered = d.requested.aos;
  d.sectors.aligned = d.sectors.aos, d.requested.aligned = d.requested.aos;
  d.cost = {};
  for (const SiteEvidence& e : d.sites)
    d.cost.add({siteCost(e, Layout::AoS), siteCost(e, Layout::SoA),
                hasClusters(d) ? siteCost(e, Layout::Clustered) : siteCost(e, Layout::AoS), aosoaCost(e),
                d.alignable ? siteCost(e, Layout::Aligned) : siteCost(e, Layout::AoS)});
}

// The fields of a struct that every replayed warp reads at its own index (at least
// kOwnIndexShare of the warp-level executions of each of their sites); a field with no replayed
// site is not among them.
std::set<std::string> ownIndexFields(const StructDecision& d) {
  std::set<std::string> own, gathered;
  for (const SiteEvidence& e : d.sites) {
    if (!e.replayed || e.model.warps == 0) continue;
    (e.model.ownIndex >= kOwnIndexShare * e.model.warps ? own : gathered).insert(e.site.field);
  }
  for (const std::string& f : gathered) own.erase(f);
  return own;
}

// The decision: least predicted cost among the layouts the rewriter emits, in the order AoS,
// aligned, clustered, SoA (the least change to the sources first); clustered and SoA must beat the
// best so far by kModelMinGain. The aligned record is weighed where it merges some access (it
// costs less than AoS) and needs no margin: it moves AoS's bytes at AoS's offsets, so what the
// replay cannot see (caches, DRAM pages, aliasing) is the same, and only the requests differ.
void decide(StructDecision& d, const AnalyzeOptions& options) {
  d.layout = Layout::AoS;
  if (!executed(d)) return;
  std::vector<Layout> order = {Layout::AoS};
  if (d.alignable && d.cost.aligned < d.cost.aos) order.push_back(Layout::Aligned);
  if (clusteredCandidate(d, options) && options.clusters) order.push_back(Layout::Clustered);
  order.push_back(Layout::SoA);
  d.weighed = order;
  for (Layout l : order)
    if (d.cost.under(l) < d.cost.under(d.layout) * (l == Layout::Aligned ? 1 : 1 - kModelMinGain)) d.layout = l;
  double chosen = d.cost.under(d.layout);
  // Transposed last: the biggest change to the sources, so it too must beat the best by the margin.
  if (d.transposedCost > 0 && d.transposedCost < chosen * (1 - kModelMinGain)) {
    d.layout = Layout::SoA;
    d.transposed = true;
    chosen = d.transposedCost;
  }
  d.score = d.cost.aos > 0 ? (d.cost.aos - chosen) / d.cost.aos : 0;
}

// SoA stored transposed, for the structs whose accesses index a flattened 2-D array of rows of W
// (transposeWidth): their SoA arrays replayed again with element r * W + k at k * rows + r, and
// priced as SoA is. Only the SoA numbers of that replay are read: it is the one layout transposed.
llvm::Error priceTransposed(std::map<std::string, StructDecision>& decisions,
                            const std::map<std::string, const StructInfo*>& structInfo,
                            std::vector<StructLayoutModel> structs, const Trace& trace,
                            const std::vector<ReplayUnit>& units, const std::vector<std::string>& launchKernels,
                            const SiteUnits& unitOf, unsigned tracePeriod, const AnalyzeOptions& options) {
  bool any = false;
  for (StructLayoutModel& m : structs) {
    StructDecision& d = decisions.at(m.info.name);
    if (!executed(d)) continue;
    d.transposeWidth = transposeWidth(d);
    if (d.transposeWidth == 0 || d.transposeWidth > kMaxReplayedTranspose) continue;
    m.transpose = d.transposeWidth;
    any = true;
  }
  if (!any) return llvm::Error::success();
  auto replay = replayTrace(trace, units, structs, launchKernels);
  if (!replay) return replay.takeError();
  for (const StructLayoutModel& m : structs) {
    if (!m.transpose) continue;
    StructDecision transposed = decisions.at(m.info.name);
    priceStruct(*structInfo.at(m.info.name), transposed, *replay, unitOf, tracePeriod, options);
    decisions.at(m.info.name).transposedCost = transposed.cost.soa;
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Error applyModel(Analysis& analysis, std::map<std::string, StructDecision>& decisions,
                       const std::map<std::string, const StructInfo*>& structInfo, const std::vector<ModelUnit>& units,
                       const Profile& profile, llvm::StringRef profilePath, const AnalyzeOptions& options) {
  if (!profile.trace)
    return fileError(profilePath, "has no trace: model mode replays the accesses that a program instrumented with "
                                  "`relayout instrument --trace` records (or use --mode paper)");
  std::string tracePath = options.tracePath;
  if (tracePath.empty()) tracePath = findTrace(profilePath, profile.trace->file);
  auto trace = Trace::open(tracePath);
  if (!trace) return trace.takeError();
  if (trace->header().records != profile.trace->records)
    return fileError(tracePath, fmt::format("holds {} records but the profile {} says its trace has {}: not the trace "
                                            "of that run",
                                            trace->header().records, profilePath.str(), profile.trace->records));
  analysis.traceFile = tracePath;
  analysis.traceRecords = trace->header().records;

  std::vector<ReplayUnit> replayUnits(profile.units.size());
  for (size_t u = 0; u < profile.units.size(); ++u) replayUnits[u].sites = profile.units[u].sites.size();
  for (const ModelUnit& m : units) replayUnits[m.unitIndex].map = &m.file->map;
  std::vector<StructLayoutModel> structs;
  for (const auto& [name, d] : decisions) {
    structs.push_back({*structInfo.at(name),
                       hasClusters(d) ? fieldsOfClusters(*d.clustering) : std::vector<std::vector<std::string>>{}});
  }
  std::vector<std::string> launchKernels;
  for (const TracedLaunch& l : profile.trace->launches) launchKernels.push_back(launchKernel(l, replayUnits));
  auto replay = replayTrace(*trace, replayUnits, structs, launchKernels);
  if (!replay) return replay.takeError();

  SiteUnits unitOf;
  for (const ModelUnit& m : units)
    for (const SiteInfo& site : m.file->map.sites) unitOf[{m.file->map.sourcePath, site.id}] = &m;
  const unsigned tracePeriod = trace->header().blockPeriod;
  const bool cutClusters = options.clusters && options.checkClusters && !options.forced;
  std::map<std::string, StructDecision> unpriced;  // as they were before pricing, where a cut may follow
  for (auto& [name, d] : decisions) {
    if (cutClusters && hasClusters(d)) unpriced.emplace(name, d);
    priceStruct(*structInfo.at(name), d, *replay, unitOf, tracePeriod, options);
  }

  // The tree groups fields by loop, not by how they are reached: a cluster holding both fields
  // gathered through another element's index and fields read at the thread's own is cut between
  // them, priced on a second replay and kept where it costs less (docs/analysis.md, "Model mode").
  std::map<std::string, Clustering> cuts;
  for (auto& [name, before] : unpriced) {
    Clustering cut =
        separateOwnIndexFields(*structInfo.at(name), *before.clustering, ownIndexFields(decisions.at(name)));
    if (fieldsOfClusters(cut) != fieldsOfClusters(*before.clustering)) cuts.emplace(name, std::move(cut));
  }
  if (!cuts.empty()) {
    for (StructLayoutModel& m : structs) {
      auto cut = cuts.find(m.info.name);
      if (cut != cuts.end()) m.clusters = fieldsOfClusters(cut->second);
    }
    auto again = replayTrace(*trace, replayUnits, structs, launchKernels);
    if (!again) return again.takeError();
    for (auto& [name, cut] : cuts) {
      StructDecision candidate = unpriced.at(name);
      candidate.clustering = cut;
      priceStruct(*structInfo.at(name), candidate, *again, unitOf, tracePeriod, options);
      StructDecision& d = decisions.at(name);
      if (candidate.cost.clustered < d.cost.clustered) d = std::move(candidate);
    }
  }
  if (llvm::Error err = priceTransposed(decisions, structInfo, structs, *trace, replayUnits, launchKernels, unitOf,
                                        tracePeriod, options))
    return err;
  for (auto& [name, d] : decisions) decide(d, options);
  return llvm::Error::success();
}

std::string modelReason(const StructDecision& d) {
  std::string numbers =
      fmt::format("predicted cost (sectors from L2 + requested lines x {:g} + requests x {:g}) AoS {:.4g}, SoA {:.4g}",
                  kL1WavefrontWeight, kRequestWeight, d.cost.aos, d.cost.soa);
  if (hasClusters(d)) numbers += fmt::format(", clustered {:.4g}", d.cost.clustered);
  if (d.alignable) numbers += fmt::format(", aligned to its size {:.4g}", d.cost.aligned);
  if (d.transposedCost > 0)
    numbers += fmt::format(", SoA stored transposed (rows of {}) {:.4g}", d.transposeWidth, d.transposedCost);
  numbers += fmt::format(", AoSoA {:.4g} (not emitted)", d.cost.aosoa);
  std::string pick = d.layout == Layout::AoS
                         ? fmt::format("AoS kept: no emitted layout costs {:.0f}% less", 100 * kModelMinGain)
                         : fmt::format("{}{} costs {:.0f}% less than AoS", toString(d.layout),
                                       d.transposed ? " stored transposed" : "", 100 * d.score);
  return fmt::format("model: {}; {} ({:.0f}% of executions replayed from the trace)", numbers, pick,
                     100 * d.replayedShare);
}

void addModelDetails(const StructDecision& d, nlohmann::json& details) {
  nlohmann::json& predicted = details["predicted_sectors"];
  predicted["aosoa"] = d.sectors.aosoa;
  predicted["clustered"] = d.sectors.clustered;
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelSectors& k : d.kernels)
    kernels.push_back({{"kernel", k.kernel},
                       {"predicted_sectors", {{"aos", k.sectors.aos}, {"soa", k.sectors.soa},
                                              {"aosoa", k.sectors.aosoa}, {"clustered", k.sectors.clustered}}}});
  details["model"] = {{"cost", {{"aos", d.cost.aos}, {"soa", d.cost.soa}, {"aosoa", d.cost.aosoa},
                                {"clustered", d.cost.clustered}, {"l1_wavefront_weight", kL1WavefrontWeight},
                                {"request_weight", kRequestWeight}}},
                      {"requested_sectors", {{"aos", d.requested.aos}, {"soa", d.requested.soa},
                                             {"aosoa", d.requested.aosoa}, {"clustered", d.requested.clustered}}},
                      {"measured_aos_sectors", d.measuredAoS},
                      {"replayed_share", d.replayedShare},
                      {"emitted_layouts", hasClusters(d) ? std::vector<std::string>{"aos", "clustered", "soa"}
                                                         : std::vector<std::string>{"aos", "soa"}},
                      {"kernels", kernels}};
  if (d.alignable) details["model"]["cost"]["aligned"] = d.cost.aligned;
  if (d.transposedCost > 0) details["model"]["cost"]["soa_transposed"] = d.transposedCost;
  if (std::find(d.weighed.begin(), d.weighed.end(), Layout::Aligned) != d.weighed.end())
    details["model"]["emitted_layouts"].push_back("aligned");
}

void forceDecision(StructDecision& d, Layout layout) {
  d.transposed = false;  // --transpose asks for it by name
  d.layout = (layout == Layout::Clustered && !hasClusters(d)) || (layout == Layout::Aligned && !d.alignable)
                 ? Layout::AoS
                 : layout;
}

std::string forcedFallbackNote(const StructDecision& d, Layout forced) {
  if (forced == Layout::Aligned)
    return fmt::format(
        " (it is {} bytes, aligned to {}: aligning it to its size changes nothing a vector access "
        "could use: kept AoS)",
        d.info.size, d.info.align);
  if (!executed(d)) return " (no executed accesses, so no field access tree: kept AoS)";
  return " (the field access tree gives one cluster holding every field: kept AoS)";
}

}  // namespace relayout
