#include "ReportFacts.h"
#include "SiteMeasures.h"
#include "relayout/analysis/Analyze.h"
#include "relayout/analysis/Model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace relayout {

namespace {

std::string trafficLine(const Analysis& a, const StructDecision& d) {
  if (a.mode == AnalyzeMode::Model) {
    std::string out =
        fmt::format("predicted 32-byte sectors (trace replay, {:.0f}% of executions): AoS {:.4g}, SoA {:.4g}",
                    100 * d.replayedShare, d.sectors.aos, d.sectors.soa);
    if (d.clustering && d.clustering->clusters.size() > 1)
      out += fmt::format(", clustered {:.4g}", d.sectors.clustered);
    out += fmt::format(", AoSoA {:.4g} (not emitted)", d.sectors.aosoa);
    out += fmt::format(
        "\n  predicted cost (sectors + requested lines x {:g} + requests x {:g}, decides): AoS {:.4g}, SoA {:.4g}",
        kL1WavefrontWeight, kRequestWeight, d.cost.aos, d.cost.soa);
    if (d.clustering && d.clustering->clusters.size() > 1) out += fmt::format(", clustered {:.4g}", d.cost.clustered);
    return out;
  }
  std::string out = fmt::format("predicted 32-byte sectors: AoS {:.4g} (measured), SoA {:.4g} (estimate)",
                                d.sectors.aos, d.sectors.soa);
  if (d.clustering) out += fmt::format(", clustered {:.4g} (estimate)", d.sectors.clustered);
  return out;
}

std::string ruleName(const Analysis& a) {
  std::string rule = a.mode == AnalyzeMode::Model ? "traffic model: trace replay" : "paper rule";
  return a.forced ? rule + "; layouts forced by --layout" : rule;
}

const char* clusterWord(const StructDecision& d) {
  if (d.layout == Layout::Clustered) return "cluster";
  return d.clustering->clusters.size() > 1 ? "candidate cluster (not chosen):" : "one cluster, kept as AoS:";
}

// Model mode's clusters of the tree that cost more together than apart (AnalyzeModel.cpp).
std::string apartLines(const Clustering& c, const char* prefix) {
  std::string out;
  for (const ClusterApart& a : c.apart)
    out += fmt::format(
        "{}taken apart: {{{}}}, predicted cost {:.4g} together, {:.4g} with each field an array of its "
        "own\n",
        prefix, fmt::join(a.fields, ", "), a.together, a.apart);
  return out;
}

std::string clusterLine(const FieldCluster& c) {
  return fmt::format("{} {{{}}} {} B ({} padding), Count {:.4g}: {}", c.name, fmt::join(c.fields, ", "), c.bytes,
                     c.paddingBytes, c.count, c.origin);
}

// Model mode: per layout, sectors after the warp's reuse and as requested; then per kernel.
std::string modelTable(const StructDecision& d) {
  std::string out = fmt::format(
      "\n| layout | predicted sectors | requested sectors | cost (decides) | emitted |\n|---|---|---|---|---|\n"
      "| AoS | {:.4g} | {:.4g} | {:.4g} | yes |\n| SoA | {:.4g} | {:.4g} | {:.4g} | yes |\n",
      d.sectors.aos, d.requested.aos, d.cost.aos, d.sectors.soa, d.requested.soa, d.cost.soa);
  if (d.clustering && d.clustering->clusters.size() > 1)
    out += fmt::format("| clustered | {:.4g} | {:.4g} | {:.4g} | yes |\n", d.sectors.clustered, d.requested.clustered,
                       d.cost.clustered);
  out += fmt::format("| AoSoA (32) | {:.4g} | {:.4g} | {:.4g} | no (the rewriter does not emit it) |\n",
                     d.sectors.aosoa, d.requested.aosoa, d.cost.aosoa);
  out += fmt::format("\nThe profile measured {:.4g} sectors as run (AoS requested, replayed: {:.4g}).\n", d.measuredAoS,
                     d.requested.aos);
  if (d.kernels.empty()) return out;
  // Per kernel, each layout's change from AoS; a kernel the chosen layout makes read more sectors is
  // pointed out, since the struct's total can hide it.
  auto change = [](double sectors, double aos) {
    return aos > 0 ? fmt::format("{:.4g} ({:+.0f}%)", sectors, (sectors / aos - 1) * 100)
                   : fmt::format("{:.4g}", sectors);
  };
  out += "\n| kernel | AoS | SoA | AoSoA | clustered | under the chosen layout |\n|---|---|---|---|---|---|\n";
  for (const KernelSectors& k : d.kernels) {
    const std::string note = slowerUnderChosen(d, k)
                                 ? fmt::format("**slower: {:+.0f}% sectors**",
                                               changeFromAoS(k.sectors.under(d.layout), k.sectors.aos) * 100)
                                 : "";
    out += fmt::format("| `{}` | {:.4g} | {} | {} | {} | {} |\n", k.kernel, k.sectors.aos,
                       change(k.sectors.soa, k.sectors.aos), change(k.sectors.aosoa, k.sectors.aos),
                       change(k.sectors.clustered, k.sectors.aos), note);
  }
  out += "\nPercentages: each layout's predicted sectors against AoS's, per kernel.\n";
  return out;
}

// Each element's bytes before (the struct, its padding shown) and after (the chosen layout's
// arrays or clusters), one line each; ReportFacts.h computes them for report.html too.
std::string byteLayout(const StructDecision& d) {
  if (d.info.fields.empty()) return "";
  std::vector<std::string> before;
  for (const ByteSpan& s : bytesBefore(d.info))
    before.push_back(s.padding() ? fmt::format("*{} B padding*", s.size)
                                 : fmt::format("`{}` {}–{}", s.name, s.offset, s.offset + s.size - 1));
  std::string out =
      fmt::format("\nBytes of one element, before (AoS, {} B): {}.\n", d.info.size, fmt::join(before, ", "));
  std::vector<std::string> after;
  for (const ArrayAfter& a : arraysAfter(d)) {
    std::vector<std::string> fields;
    for (const ByteSpan& s : a.spans)
      if (!s.padding()) fields.push_back(s.name);
    after.push_back(fields.size() == 1 ? fmt::format("`{}` {} B", a.name, a.bytes)
                                       : fmt::format("`{}` {} B ({}{})", a.name, a.bytes, fmt::join(fields, ", "),
                                                     a.paddingBytes ? fmt::format("; *{} B padding*", a.paddingBytes)
                                                                    : std::string()));
  }
  if (d.layout == Layout::SoA)
    out += fmt::format("After (SoA, one array per field, no padding): {}; {}.\n", fmt::join(after, ", "),
                       elementGrowth(d));
  else if (!after.empty())
    out += fmt::format("After (clustered, one array per cluster): {}; {}.\n", fmt::join(after, ", "), elementGrowth(d));
  return out;
}

}  // namespace

std::string renderTerminalReport(const Analysis& analysis, size_t sitesPerStruct) {
  std::string out = fmt::format("relayout analysis ({}) of a profile recorded on {}\n", ruleName(analysis),
                                analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice);
  for (const StructDecision& d : analysis.structs) {
    out += fmt::format("\nstruct {}: {} ({} sites)\n  {}\n", d.name, decisionLayoutName(d), d.sites.size(),
                       decisionLine(analysis, d));
    for (size_t i = 0; i < d.sites.size() && i < sitesPerStruct; ++i) {
      const SiteEvidence& e = d.sites[i];
      out += fmt::format(
          "  {}: {:<9} {:<12} sectors/request={:.2f} (ideal {:.0f}, {}: {}) paper class={} n={:.2f} "
          "execs={:.0f} weight={:+.4g}\n",
          e.site.location.str(), e.site.field, toString(e.site.access), sectorsPerRequest(e), idealSectorsPerRequest(e),
          excessText(e), nsightWord(e), paperClassName(e.verdict.cls), e.verdict.n, e.verdict.executions,
          e.verdict.weight);
    }
    if (d.sites.size() > sitesPerStruct) out += fmt::format("  ... {} more sites\n", d.sites.size() - sitesPerStruct);
    if (!executed(d)) continue;
    out += "  " + trafficLine(analysis, d) + "\n";
    if (d.clustering) {
      for (const FieldCluster& c : d.clustering->clusters)
        out += fmt::format("  {} {}\n", clusterWord(d), clusterLine(c));
      out += apartLines(*d.clustering, "  ");
    }
  }
  if (analysis.hw) out += renderHwTerminal(*analysis.hw);
  return out;
}

std::string renderMarkdownReport(const Analysis& analysis, size_t sitesPerStruct) {
  std::string out = fmt::format("# relayout analysis\n\nRule: {} (docs/analysis.md). Profile recorded on {}.\n",
                                analysis.mode == AnalyzeMode::Model
                                    ? "the traffic model (each layout's sectors replayed from the trace)"
                                    : "the paper's (Nakai & Ohno 2017: the sites' classes, weighted by executions)",
                                analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice);
  if (analysis.forced) out += "Layouts forced by `--layout`.\n";
  for (const StructDecision& d : analysis.structs) {
    out += fmt::format("\n## struct `{}`: {}\n\nDecision: {} ({} sites; the paper rule's weighted sum {:+.6g}).\n\n",
                       d.name, decisionLayoutName(d), decisionLine(analysis, d), d.sites.size(), d.score);
    if (auto r = analysis.rewrite.find(d.name); r != analysis.rewrite.end()) {
      if (r->second.applied) {
        out += "Rewrite: applied.\n\n";
      } else {
        out += "**Rewrite: not applied.** The sources keep this struct's layout because:\n\n";
        for (const std::string& why : r->second.reasons) out += "- " + why + "\n";
        out += "\n";
      }
    }
    out += "| site | field | access | sectors/request (ideal) | excess | paper class | n | executions | weight |\n";
    out += "|---|---|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < d.sites.size() && i < sitesPerStruct; ++i) {
      const SiteEvidence& e = d.sites[i];
      out += fmt::format("| {} | {} | {} | {:.2f} ({:.0f}) | {} ({}) | {} | {:.2f} | {:.0f} | {:+.4g} |\n",
                         e.site.location.str(), e.site.field, toString(e.site.access), sectorsPerRequest(e),
                         idealSectorsPerRequest(e), excessText(e), nsightWord(e), paperClassName(e.verdict.cls),
                         e.verdict.n, e.verdict.executions, e.verdict.weight);
    }
    if (!d.sites.empty()) out += fmt::format("\n{}\n", kSiteColumnsLegend);
    out += byteLayout(d);
    if (!executed(d)) continue;
    if (analysis.mode == AnalyzeMode::Model) out += "\n" + trafficLine(analysis, d) + ".\n" + modelTable(d);
    else
      out += "\n" + trafficLine(analysis, d) +
             ". Estimates assume stride-1 indices for coalesced sites (docs/analysis.md).\n";
    if (!d.clustering) continue;
    out += "\nField access tree (kernel, loop with Count, fields):\n\n";
    for (const KernelNode& k : d.clustering->tree.kernels) {
      out += fmt::format("- `{}`\n", k.name);
      for (const LoopNode& l : k.loops)
        out += fmt::format("  - {} (Count {:.4g}{}): {}\n", l.label, l.count, l.measured ? "" : ", from sites",
                           fmt::join(l.fields, ", "));
    }
    out += "\n| cluster | fields | bytes | padding | Count | from |\n|---|---|---|---|---|---|\n";
    for (const FieldCluster& c : d.clustering->clusters)
      out += fmt::format("| {} | {} | {} | {} | {:.4g} | {} |\n", c.name, fmt::join(c.fields, ", "), c.bytes,
                         c.paddingBytes, c.count, c.origin);
    if (!d.clustering->apart.empty()) out += "\n" + apartLines(*d.clustering, "- ");
  }
  if (analysis.hw) out += renderHwMarkdown(*analysis.hw);
  return out;
}

}  // namespace relayout
