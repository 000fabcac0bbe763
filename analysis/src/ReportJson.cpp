// The report for machines ("relayout-report", version 1; docs/analysis.md): what the terminal,
// Markdown and HTML reports show, as data.
#include "relayout/analysis/Analyze.h"

#include "ReportFacts.h"

namespace relayout {

using nlohmann::json;

namespace {

json sectorsJson(const LayoutSectors& s, bool clustered, bool model = false) {
  json out = {{"aos", s.aos}, {"soa", s.soa}};
  if (clustered) out["clustered"] = s.clustered;
  if (model) out["aosoa"] = s.aosoa;
  return out;
}

// Model mode: sectors without the warp's reuse, the share replayed, the measured AoS sectors, per kernel.
json modelJson(const StructDecision& d) {
  json kernels = json::array();
  for (const KernelSectors& k : d.kernels)
    kernels.push_back({{"kernel", k.kernel}, {"sectors", sectorsJson(k.sectors, true, true)}});
  return {{"requested_sectors", sectorsJson(d.requested, true, true)},
          {"replayed_share", d.replayedShare},
          {"measured_aos_sectors", d.measuredAoS},
          {"kernels", kernels}};
}

json loopJson(const LoopNode& l) {
  return {{"kernel", l.kernel},
          {"label", l.label},
          {"count", l.count},
          {"count_source", l.measured ? "measured" : "site counters"},
          {"fields", l.fields}};
}

json treeJson(const FieldAccessTree& tree) {
  json kernels = json::array();
  for (const KernelNode& k : tree.kernels) {
    json loops = json::array();
    for (const LoopNode& l : k.loops) loops.push_back(loopJson(l));
    kernels.push_back({{"name", k.name}, {"loops", loops}});
  }
  return kernels;
}

json clusteringJson(const Clustering& c) {
  json merged = json::array(), clusters = json::array();
  for (const LoopNode& l : c.acrossKernels) merged.push_back(loopJson(l));
  for (const FieldCluster& f : c.clusters)
    clusters.push_back({{"name", f.name},
                        {"fields", f.fields},
                        {"data_bytes", f.dataBytes},
                        {"bytes", f.bytes},
                        {"padding_bytes", f.paddingBytes},
                        {"count", f.count},
                        {"origin", f.origin}});
  json apart = json::array();
  for (const ClusterApart& a : c.apart)
    apart.push_back({{"fields", a.fields}, {"cost_together", a.together}, {"cost_apart", a.apart}});
  return {{"tree", treeJson(c.tree)},
          {"within_kernels", treeJson(c.withinKernels)},
          {"across_kernels", merged},
          {"clusters", clusters},
          {"taken_apart", apart}};
}

}  // namespace

json renderJsonReport(const Analysis& analysis) {
  const bool model = analysis.mode == AnalyzeMode::Model;
  json structs = json::array();
  for (const StructDecision& d : analysis.structs) {
    const StructPlan* plan = analysis.plan.findStruct(d.name);
    json sites = json::array();
    for (size_t i = 0; i < d.sites.size(); ++i) {
      const SiteEvidence& e = d.sites[i];
      json site = {{"source", e.source},
                   {"site", e.site.id},
                   {"location", e.site.location.str()},
                   {"field", e.site.field},
                   {"access", toString(e.site.access)},
                   {"kernels", e.site.kernels},
                   {"class", toString(e.verdict.cls)},
                   {"n", e.verdict.n},
                   {"executions", e.verdict.executions},
                   {"weight", e.verdict.weight},
                   {"replayed", e.replayed},
                   {"sectors", sectorsJson(e.sectors, d.clustering.has_value(), model)}};
      // What nvcc emitted for it (the original's PTX), and, in model mode, the requests per layout.
      if (e.code)
        site["code"] = {{"found", e.code->found},
                        {"width", e.code->width},
                        {"requests", e.code->requests},
                        {"hoisted", e.code->hoisted}};
      if (model) {
        site["requests"] = sectorsJson(e.requests, d.clustering.has_value(), true);
        site["issued"] = e.issued;
      }
      sites.push_back(std::move(site));
    }
    json s = {{"name", d.name},
              {"layout", toString(d.layout)},
              {"score", d.score},
              {"reason", plan ? plan->reason : ""},
              {"decision", decisionLine(analysis, d)},
              {"site_count", d.sites.size()},
              {"sectors", sectorsJson(d.sectors, d.clustering.has_value(), model)},
              {"sites", sites}};
    if (d.clustering) s["clustering"] = clusteringJson(*d.clustering);
    if (model) s["model"] = modelJson(d);
    if (auto r = analysis.rewrite.find(d.name); r != analysis.rewrite.end())
      s["rewrite"] = {{"applied", r->second.applied}, {"reasons", r->second.reasons}};
    structs.push_back(std::move(s));
  }
  json report = {
      {"format", "relayout-report"},
      {"version", 1},
      {"rule", toString(analysis.mode)},
      {"forced", analysis.forced},
      {"device", analysis.profileDevice},
      {"sectors_note", model ? "every layout replayed from the trace: sectors a warp had not touched in its "
                               "recent accesses, scaled to the profile's executions; sites missing from the "
                               "trace use the paper-mode estimates"
                             : "aos: measured; soa, clustered: estimates from each site's class and active lanes "
                               "(coalesced sites taken as stride-1), not a replay"},
      {"structs", structs}};
  if (analysis.hw) report["hw"] = hwComparisonJson(*analysis.hw);
  return report;
}

}  // namespace relayout
