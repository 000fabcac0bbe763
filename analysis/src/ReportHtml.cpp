// The HTML report: one self-contained page (inline CSS, inline SVG, no scripts, nothing fetched),
// so that it can be mailed, attached to CI runs or opened offline.
#include "relayout/analysis/Analyze.h"
#include "HtmlEscape.h"
#include "SiteMeasures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace relayout {

namespace {

std::string esc(const std::string& text) { return htmlEscape(text); }

const char* kStyle = R"(body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-top:1px solid #ccc;padding-top:1em;margin-top:2em}h3{font-size:1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
.note{background:#fff8e0;border-left:4px solid #e0b000;padding:.4em .8em}
.layout{font-weight:bold}code{background:#f4f4f4;padding:0 .2em}ul.tree{list-style:none;padding-left:1.2em}
.est{color:#8a6d00}svg text{font:12px system-ui,sans-serif})";

std::string layoutWord(Layout layout) {
  switch (layout) {
    case Layout::AoS: return "AoS (unchanged)";
    case Layout::SoA: return "SoA";
    case Layout::Clustered: return "clustered";
  }
  return "AoS";
}

// Horizontal bars, one per layout. Paper mode: measured bars solid, estimated ones hatched.
// Model mode: every bar replayed; the chosen layout green, AoSoA (not emitted) grey.
std::string barChart(const Analysis& a, const StructDecision& d) {
  struct Bar {
    std::string label;
    double value;
    bool estimate;
    const char* fill = "#4a7bd0";
  };
  std::vector<Bar> bars;
  if (a.mode == AnalyzeMode::Model) {
    auto fill = [&](Layout l) { return d.layout == l ? "#2a9d5c" : "#4a7bd0"; };
    bars = {{"AoS", d.sectors.aos, false, fill(Layout::AoS)}, {"SoA", d.sectors.soa, false, fill(Layout::SoA)}};
    if (d.clustering && d.clustering->clusters.size() > 1)
      bars.push_back({"clustered", d.sectors.clustered, false, fill(Layout::Clustered)});
    bars.push_back({"AoSoA (not emitted)", d.sectors.aosoa, false, "#b0b0b0"});
    // Sites missing from the trace carry estimates: say how much of the bars is replayed.
    for (Bar& b : bars)
      if (d.replayedShare < 0.999) b.label += fmt::format(" ({:.0f}% replayed)", 100 * d.replayedShare);
  } else {
    bars = {{"AoS (measured)", d.sectors.aos, false}, {"SoA (estimate)", d.sectors.soa, true}};
    if (d.clustering) bars.push_back({"clustered (estimate)", d.sectors.clustered, true});
  }
  double top = 0;
  for (const Bar& b : bars) top = std::max(top, b.value);
  const int labelWidth = a.mode == AnalyzeMode::Model && d.replayedShare < 0.999 ? 260 : 150, barWidth = 420, row = 26;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"predicted "
      "32-byte sectors per layout\"><defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" "
      "fill=\"#f2c94c\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c99a06\" stroke-width=\"2\"/></pattern>"
      "</defs>\n",
      labelWidth + barWidth + 110, row * bars.size() + 8);
  for (size_t i = 0; i < bars.size(); ++i) {
    double width = top > 0 ? bars[i].value / top * barWidth : 0;
    int y = static_cast<int>(i) * row + 4;
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + 15, esc(bars[i].label));
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"{}\" stroke=\"#555\"/>", labelWidth,
                       y, std::max(width, 1.0), bars[i].estimate ? "url(#hatch)" : bars[i].fill);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{:.4g}</text>\n", labelWidth + std::max(width, 1.0) + 6, y + 15,
                       bars[i].value);
  }
  return svg + "</svg>\n";
}

// Model mode: predicted sectors of the struct per kernel and layout.
std::string kernelTable(const StructDecision& d) {
  if (d.kernels.empty()) return "";
  std::string out = "<table><tr><th>kernel</th><th>AoS</th><th>SoA</th><th>AoSoA</th><th>clustered</th></tr>\n";
  for (const KernelSectors& k : d.kernels)
    out += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{:.4g}</td><td class=\"num\">{:.4g}</td>"
                       "<td class=\"num\">{:.4g}</td><td class=\"num\">{:.4g}</td></tr>\n",
                       esc(k.kernel), k.sectors.aos, k.sectors.soa, k.sectors.aosoa, k.sectors.clustered);
  return out + fmt::format("</table>\n<p><small>Requested (without the warp's reuse): AoS {:.4g}, SoA {:.4g}, AoSoA "
                           "{:.4g}. The profile measured {:.4g} sectors as run.</small></p>\n",
                           d.requested.aos, d.requested.soa, d.requested.aosoa, d.measuredAoS);
}

std::string treeList(const FieldAccessTree& tree) {
  std::string out = "<ul class=\"tree\">\n";
  for (const KernelNode& k : tree.kernels) {
    out += fmt::format("<li>kernel <code>{}</code><ul class=\"tree\">\n", esc(k.name));
    for (const LoopNode& l : k.loops)
      out += fmt::format("<li>{} &mdash; Count {:.4g}{} &mdash; {}</li>\n", esc(l.label), l.count,
                         l.measured ? "" : " <span class=\"est\">(from site counters)</span>",
                         esc(fmt::format("{}", fmt::join(l.fields, ", "))));
    out += "</ul></li>\n";
  }
  return out + "</ul>\n";
}

std::string clusterSection(const StructDecision& d) {
  const Clustering& c = *d.clustering;
  std::string out = "<h3>Field access tree</h3>\n<p>Step 1, as built from the site map and the profile:</p>\n" +
                    treeList(c.tree) + "<p>Step 2, Loop nodes of equal Count merged within each kernel:</p>\n" +
                    treeList(c.withinKernels) + "<p>Step 3, nodes sharing a field with equal Count merged across kernels:</p>\n<ul>\n";
  for (const LoopNode& n : c.acrossKernels)
    out += fmt::format("<li>Count {:.4g}: {} <small>({}: {})</small></li>\n", n.count,
                       esc(fmt::format("{}", fmt::join(n.fields, ", "))), esc(n.kernel), esc(n.label));
  out += fmt::format("</ul>\n<h3>Clusters{}</h3>\n<table><tr><th>cluster</th><th>fields</th><th>bytes</th>"
                     "<th>padding</th><th>Count</th><th>from</th></tr>\n",
                     d.layout == Layout::Clustered ? ""
                     : c.clusters.size() > 1     ? " (the clustered candidate, not chosen)"
                                                 : " (one: the struct stays AoS)");
  for (const FieldCluster& f : c.clusters)
    out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{:.4g}</td><td>{}</td></tr>\n",
                       esc(f.name), esc(fmt::format("{}", fmt::join(f.fields, ", "))), f.bytes, f.paddingBytes, f.count,
                       esc(f.origin));
  return out + "</table>\n";
}

std::string sitesTable(const Analysis& a, const StructDecision& d, size_t sitesPerStruct) {
  const bool model = a.mode == AnalyzeMode::Model;
  std::string out = fmt::format(
      "<h3>Top sites ({} of {})</h3>\n<table><tr><th>site</th><th>field</th><th>access</th><th>class</th><th>n</th>"
      "<th>executions</th><th>sectors/request<br>(ideal)</th><th>weight</th><th>sectors AoS<br>({})</th>"
      "<th>SoA<br>({})</th>{}</tr>\n",
      std::min(sitesPerStruct, d.sites.size()), d.sites.size(), model ? "replayed" : "measured",
      model ? "replayed" : "estimate", d.clustering ? (model ? "<th>clustered<br>(replayed)</th>" : "<th>clustered<br>(estimate)</th>") : "");
  for (size_t i = 0; i < d.sites.size() && i < sitesPerStruct; ++i) {
    const SiteEvidence& e = d.sites[i];
    out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{:.2f}</td>"
                       "<td class=\"num\">{:.0f}</td><td class=\"num\">{:.2f} ({:.0f})</td>"
                       "<td class=\"num\">{:+.4g}</td><td class=\"num\">{:.4g}</td><td class=\"num\">{:.4g}</td>",
                       esc(e.site.location.str()), esc(e.site.field), toString(e.site.access), toString(e.verdict.cls),
                       e.verdict.n, e.verdict.executions, sectorsPerRequest(e), idealSectorsPerRequest(e),
                       e.verdict.weight, e.sectors.aos, e.sectors.soa);
    if (d.clustering) out += fmt::format("<td class=\"num\">{:.4g}</td>", e.sectors.clustered);
    out += "</tr>\n";
  }
  return out + "</table>\n<p class=\"legend\">" + esc(kSiteColumnsLegend) + "</p>\n";
}

std::string noteFor(const Analysis& a) {
  std::string note =
      a.mode == AnalyzeMode::Model
          ? "Every layout's sectors are <b>replayed</b> from the trace (" + esc(a.traceFile) +
                fmt::format(", {} records): per warp-level access, the 32-byte sectors the warp had not touched in "
                            "its recent accesses, scaled to the profile's execution counts. AoSoA is shown for "
                            "comparison; the rewriter does not emit it. Score: the share of AoS's cost the chosen layout "
                            "saves, where a layout's cost (it decides) is its sectors plus its requested sectors / 3, "
                            "not the share of sectors the chart shows.",
                            a.traceRecords)
          : "Sectors for AoS are measured by the profile. Sectors for SoA and clustered layouts are <b>estimates</b> "
            "from each site's class and active lanes (coalesced sites taken as stride-1), not a replay of the accesses.";
  return a.forced ? note + " Layouts were <b>forced</b> by <code>--layout</code>." : note;
}

}  // namespace

std::string renderHtmlReport(const Analysis& analysis, size_t sitesPerStruct) {
  std::string device = analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>relayout analysis</title>\n"
      "<style>{}</style></head><body>\n<h1>relayout analysis</h1>\n<p>Rule: {} ("
      "docs/analysis.md). Profile recorded on {}.</p>\n<p class=\"note\">{}</p>\n",
      kStyle,
      analysis.mode == AnalyzeMode::Model
          ? "the traffic model (each layout's sectors replayed from the trace)"
          : "the paper's (Nakai &amp; Ohno 2017: the sites' classes, weighted by executions)",
      esc(device), noteFor(analysis));
  const bool model = analysis.mode == AnalyzeMode::Model;
  out += model ? "<table><tr><th>struct</th><th>layout</th><th>score</th><th>sectors AoS</th><th>SoA</th>"
                 "<th>clustered</th><th>AoSoA (not emitted)</th></tr>\n"
               : "<table><tr><th>struct</th><th>layout</th><th>score</th><th>sectors AoS (measured)</th>"
                 "<th>SoA (estimate)</th><th>clustered (estimate)</th></tr>\n";
  for (const StructDecision& d : analysis.structs)
    out += fmt::format("<tr><td><a href=\"#s-{0}\"><code>{0}</code></a></td><td class=\"layout\">{1}</td>"
                       "<td class=\"num\">{2:+.4g}</td><td class=\"num\">{3:.4g}</td><td class=\"num\">{4:.4g}</td>"
                       "<td class=\"num\">{5}</td>{6}</tr>\n",
                       esc(d.name), layoutWord(d.layout), d.score, d.sectors.aos, d.sectors.soa,
                       d.clustering ? fmt::format("{:.4g}", d.sectors.clustered) : "&ndash;",
                       model ? fmt::format("<td class=\"num\">{:.4g}</td>", d.sectors.aosoa) : "");
  out += "</table>\n";
  for (const StructDecision& d : analysis.structs) {
    const StructPlan* plan = analysis.plan.findStruct(d.name);
    out += fmt::format("<h2 id=\"s-{0}\">struct <code>{0}</code>: <span class=\"layout\">{1}</span></h2>\n<p>{2}</p>\n",
                       esc(d.name), layoutWord(d.layout), esc(plan ? plan->reason : ""));
    if (auto r = analysis.rewrite.find(d.name); r != analysis.rewrite.end()) {
      if (r->second.applied) {
        out += "<p><strong>Rewrite:</strong> applied.</p>\n";
      } else {
        out += "<p><strong>Rewrite: not applied.</strong> The sources keep this struct's layout because:</p>\n<ul>\n";
        for (const std::string& why : r->second.reasons) out += "<li>" + esc(why) + "</li>\n";
        out += "</ul>\n";
      }
    }
    if (d.sites.empty() || d.sites.front().verdict.cls == AccessClass::NotExecuted) continue;
    out += "<h3>Predicted traffic per layout (32-byte sectors)</h3>\n" + barChart(analysis, d);
    if (analysis.mode == AnalyzeMode::Model) out += kernelTable(d);
    if (d.clustering) out += clusterSection(d);
    out += sitesTable(analysis, d, sitesPerStruct);
  }
  if (analysis.hw) out += renderHwHtml(*analysis.hw);
  return out + "</body></html>\n";
}

}  // namespace relayout
