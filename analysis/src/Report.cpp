#include "relayout/analysis/Analyze.h"

#include <fmt/format.h>

namespace relayout {

namespace {

const char* layoutName(Layout layout) {
  switch (layout) {
    case Layout::AoS: return "AoS (unchanged)";
    case Layout::SoA: return "SoA";
    case Layout::Clustered: return "clustered";
  }
  return "AoS";
}

double sectorsPerWarp(const SiteEvidence& e) {
  return e.counters.warpExecs ? double(e.counters.sectors) / double(e.counters.warpExecs) : 0.0;
}

}  // namespace

std::string renderTerminalReport(const Analysis& analysis, size_t sitesPerStruct) {
  std::string out = fmt::format("relayout analysis (paper rule) of a profile recorded on {}\n",
                                analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice);
  for (const StructDecision& d : analysis.structs) {
    out += fmt::format("\nstruct {}: {}   score {:+.4g} over {} sites\n", d.name, layoutName(d.layout), d.score,
                       d.sites.size());
    for (size_t i = 0; i < d.sites.size() && i < sitesPerStruct; ++i) {
      const SiteEvidence& e = d.sites[i];
      out += fmt::format("  {}: {:<9} {:<12} {:<13} n={:<5.2f} execs={:<12.0f} sectors/warp={:<5.2f} weight={:+.4g}\n",
                         e.site.location.str(), e.site.field, toString(e.site.access), toString(e.verdict.cls),
                         e.verdict.n, e.verdict.executions, sectorsPerWarp(e), e.verdict.weight);
    }
    if (d.sites.size() > sitesPerStruct) out += fmt::format("  ... {} more sites\n", d.sites.size() - sitesPerStruct);
  }
  return out;
}

std::string renderMarkdownReport(const Analysis& analysis, size_t sitesPerStruct) {
  std::string out = fmt::format("# relayout analysis\n\nRule: seed paper 001 (docs/analysis.md). Profile recorded on {}.\n",
                                analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice);
  for (const StructDecision& d : analysis.structs) {
    out += fmt::format("\n## struct `{}`: {}\n\nWeighted sum {:+.6g} over {} sites.\n\n", d.name, layoutName(d.layout),
                       d.score, d.sites.size());
    out += "| site | field | access | class | n | executions | sectors/warp | weight |\n";
    out += "|---|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < d.sites.size() && i < sitesPerStruct; ++i) {
      const SiteEvidence& e = d.sites[i];
      out += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.0f} | {:.2f} | {:+.4g} |\n", e.site.location.str(),
                         e.site.field, toString(e.site.access), toString(e.verdict.cls), e.verdict.n,
                         e.verdict.executions, sectorsPerWarp(e), e.verdict.weight);
    }
  }
  return out;
}

}  // namespace relayout
