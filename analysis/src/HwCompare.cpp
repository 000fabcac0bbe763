// Hardware cross-check: relayout's sectors per warp-level access vs the GPU's sectors per
// executed global memory instruction, line by line.
#include "relayout/analysis/HwCompare.h"

#include "relayout/analysis/Analyze.h"
#include "HtmlEscape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace relayout {

namespace {

// "a/./b" and "a//b" -> "a/b"; a leading "./" dropped; a leading "/" kept.
std::string normalized(const std::string& path) {
  std::string out = !path.empty() && path.front() == '/' ? "/" : "";
  bool first = true;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (!part.empty() && part != ".") {
      out += (first ? "" : "/") + part;
      first = false;
    }
    start = end + 1;
  }
  return out;
}

bool endsWithComponents(const std::string& longer, const std::string& shorter) {
  if (shorter.empty() || longer.size() <= shorter.size()) return false;
  return longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
         longer[longer.size() - shorter.size() - 1] == '/';
}

std::string shortFile(const std::string& path) { return llvm::sys::path::filename(path).str(); }

std::string siteLabel(const SiteInfo& site) {
  return fmt::format("{}.{} {}", site.structName, site.member.empty() ? site.field : site.member,
                     toString(site.access));
}

double perExec(uint64_t value, uint64_t count) { return count ? double(value) / double(count) : 0.0; }

std::string esc(const std::string& text) { return htmlEscape(text); }

std::string deviceText(const HwComparison& hw) {
  std::string d = hw.device.empty() ? "an unknown device" : hw.device;
  return hw.chip.empty() ? d : d + " (" + hw.chip + ")";
}

const char* kCriterion = "agree = sectors per warp-level access within 25% of each other";

}  // namespace

const char* toString(HwAgreement agreement) {
  switch (agreement) {
    case HwAgreement::Agree: return "agree";
    case HwAgreement::Differ: return "differ";
    case HwAgreement::NoHardwareData: return "no hw data";
    case HwAgreement::NotExecuted: return "not executed";
  }
  return "?";
}

bool sameSourceFile(const std::string& a, const std::string& b) {
  const std::string x = normalized(a), y = normalized(b);
  return x == y || endsWithComponents(x, y) || endsWithComponents(y, x);
}

HwComparison compareWithHardware(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                 const HwProfile& hw) {
  HwComparison out;
  out.device = hw.device;
  out.chip = hw.chip;
  out.runtimeInstructions = hw.runtimeInstructions;
  out.unmappedInstructions = hw.unmappedInstructions;

  struct Group {
    HwCompareRow row;
    uint64_t warpExecs = 0, sectors = 0;
  };
  std::map<std::pair<std::string, unsigned>, Group> groups;
  for (const SiteMapFile& file : siteMaps) {
    const UnitProfile* unit = profile.findUnit(file.map.sourceSha256);
    if (!unit) continue;
    const double period = std::max(1u, unit->blockPeriod);
    for (const SiteInfo& site : file.map.sites) {
      if (site.id >= unit->sites.size()) continue;
      const SiteCounters& c = unit->sites[site.id];
      Group& g = groups[{site.location.file, site.location.line}];
      g.row.file = site.location.file;
      g.row.line = site.location.line;
      g.row.sites.push_back(siteLabel(site));
      g.warpExecs += c.warpExecs;
      g.sectors += c.sectors;
      g.row.toolWarpExecs += double(c.warpExecs) * period;
      g.row.expectedInstructions += double(c.warpExecs) * period * (site.access == AccessKind::ReadWrite ? 2 : 1);
    }
  }

  for (auto& [key, g] : groups) {
    HwCompareRow& row = g.row;
    row.toolSectorsPerExec = perExec(g.sectors, g.warpExecs);
    std::set<std::string> functions;
    for (const HwLine& l : hw.lines) {
      if (l.line != row.line || !sameSourceFile(l.file, row.file)) continue;
      row.hwInstructions += l.instructions;
      row.hwSectors += l.sectors;
      row.hwIdealSectors += l.idealSectors;
      functions.insert(l.function);
    }
    row.functions.assign(functions.begin(), functions.end());
    row.hwSectorsPerInst = perExec(row.hwSectors, row.hwInstructions);
    row.hwIdealPerInst = perExec(row.hwIdealSectors, row.hwInstructions);
    if (g.warpExecs == 0)
      row.agreement = HwAgreement::NotExecuted;
    else if (row.hwInstructions == 0)
      row.agreement = HwAgreement::NoHardwareData;
    else
      row.agreement = std::fabs(row.toolSectorsPerExec - row.hwSectorsPerInst) <=
                              kHwTolerance * std::max(row.toolSectorsPerExec, row.hwSectorsPerInst)
                          ? HwAgreement::Agree
                          : HwAgreement::Differ;
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::string renderHwTerminal(const HwComparison& hw) {
  std::string out = fmt::format(
      "\nHardware cross-check (CUPTI SASS metrics on {}): 32-byte sectors per warp-level access, relayout's counters "
      "vs the GPU's global memory instructions on the same line; {}\n",
      deviceText(hw), kCriterion);
  for (const HwCompareRow& r : hw.rows)
    out += fmt::format("  {}:{}  {}\n      relayout {:.2f} ({:.0f} execs)  hw {:.2f} (ideal {:.2f}, {} instr)  {}\n",
                       shortFile(r.file), r.line, fmt::join(r.sites, ", "), r.toolSectorsPerExec, r.toolWarpExecs,
                       r.hwSectorsPerInst, r.hwIdealPerInst, r.hwInstructions, toString(r.agreement));
  if (hw.rows.empty()) out += "  no line with sites\n";
  return out;
}

std::string renderHwMarkdown(const HwComparison& hw) {
  std::string out = fmt::format(
      "\n## Hardware cross-check\n\nCUPTI SASS metrics recorded on {} (`relayout profile --hw`): 32-byte sectors per "
      "warp-level access on each line with sites, relayout's counters (sampled blocks) against the GPU's global "
      "memory instructions on that line (every block; the instrumented build's own instructions left out). "
      "Criterion: {}.\n\n",
      deviceText(hw), kCriterion);
  out += "| line | sites | relayout sectors/access | relayout accesses | hw sectors/instr | hw ideal/instr | "
         "hw instructions | verdict |\n|---|---|---|---|---|---|---|---|\n";
  for (const HwCompareRow& r : hw.rows)
    out += fmt::format("| {}:{} | {} | {:.2f} | {:.0f} | {:.2f} | {:.2f} | {} | {} |\n", shortFile(r.file), r.line,
                       fmt::join(r.sites, ", "), r.toolSectorsPerExec, r.toolWarpExecs, r.hwSectorsPerInst,
                       r.hwIdealPerInst, r.hwInstructions, toString(r.agreement));
  return out;
}

std::string renderHwHtml(const HwComparison& hw) {
  std::string out = fmt::format(
      "<h2 id=\"hw\">Hardware cross-check</h2>\n<p>CUPTI SASS metrics recorded on {} (<code>relayout profile "
      "--hw</code>): 32-byte sectors per warp-level access on each line with sites, relayout's counters against the "
      "GPU's global memory instructions on that line. Criterion: {}.</p>\n",
      esc(deviceText(hw)), kCriterion);
  out += "<table><tr><th>line</th><th>sites</th><th>relayout sectors/access</th><th>relayout accesses</th>"
         "<th>hw sectors/instr</th><th>hw ideal/instr</th><th>hw instructions</th><th>verdict</th></tr>\n";
  for (const HwCompareRow& r : hw.rows)
    out += fmt::format("<tr><td><code>{}:{}</code></td><td>{}</td><td class=\"num\">{:.2f}</td>"
                       "<td class=\"num\">{:.0f}</td><td class=\"num\">{:.2f}</td><td class=\"num\">{:.2f}</td>"
                       "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                       esc(shortFile(r.file)), r.line, esc(fmt::format("{}", fmt::join(r.sites, ", "))),
                       r.toolSectorsPerExec, r.toolWarpExecs, r.hwSectorsPerInst, r.hwIdealPerInst, r.hwInstructions,
                       toString(r.agreement));
  return out + "</table>\n";
}

nlohmann::json hwComparisonJson(const HwComparison& hw) {
  nlohmann::json rows = nlohmann::json::array();
  for (const HwCompareRow& r : hw.rows)
    rows.push_back({{"file", r.file},
                    {"line", r.line},
                    {"sites", r.sites},
                    {"functions", r.functions},
                    {"tool_warp_execs", r.toolWarpExecs},
                    {"tool_sectors_per_exec", r.toolSectorsPerExec},
                    {"expected_instructions", r.expectedInstructions},
                    {"hw_instructions", r.hwInstructions},
                    {"hw_sectors_per_instruction", r.hwSectorsPerInst},
                    {"hw_ideal_sectors_per_instruction", r.hwIdealPerInst},
                    {"agreement", toString(r.agreement)}});
  return {{"device", hw.device}, {"chip", hw.chip},       {"tolerance", kHwTolerance},
          {"excluded", {{"runtime_instructions", hw.runtimeInstructions},
                        {"unmapped_instructions", hw.unmappedInstructions}}},
          {"rows", rows}};
}

}  // namespace relayout
