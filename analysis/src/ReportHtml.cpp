// report.html: the data for the Mustache template of ReportHtmlTemplate.cpp, per struct what
// decided (the deciding cost per candidate layout, the rule, both modes' picks), the per-kernel
// change from AoS, a field x kernel heat map, the deciding source lines annotated, the byte layout.
#include "HtmlEscape.h"
#include "ReportFacts.h"
#include "ReportHtmlTemplate.h"
#include "SiteMeasures.h"
#include "relayout/analysis/Analyze.h"
#include "relayout/analysis/Svg.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <kainjow/mustache.hpp>

#include <algorithm>
#include <map>

namespace relayout {

namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;
using kainjow::mustache::partial;

std::string num(double v) { return fmt::format("{:.4g}", v); }

// A Mustache section shows for any string, even an empty one: set optional text only when there is some.
void setIf(data& d, const std::string& key, const std::string& text) {
  if (!text.empty()) d.set(key, text);
}

data list() { return data{data::type::list}; }

data strings(const std::vector<std::string>& items) {
  data out = list();
  for (const std::string& s : items) out << data{s};
  return out;
}

// One cell of the partial "table".
struct Cell {
  Cell(std::string text, bool numeric = false, bool code = false, bool link = false, std::string flag = "")
      : text(std::move(text)), numeric(numeric), code(code), link(link), flag(std::move(flag)) {}
  std::string text;
  bool numeric;
  bool code;
  bool link;
  std::string flag;  // a warning after the text
};

svg::Bar bar(std::string label, double value, std::string valueText, std::string fill, bool hatched, bool marked) {
  svg::Bar b;
  b.label = std::move(label), b.value = value, b.valueText = std::move(valueText), b.fill = std::move(fill);
  b.hatched = hatched, b.marked = marked;
  return b;
}

data table(const std::vector<std::string>& headers, const std::vector<std::vector<Cell>>& rows,
           const std::vector<std::string>& rowClasses = {}) {
  data t;
  t.set("tableClass", "data");
  t.set("headers", strings(headers));
  data rowList = list();
  for (size_t r = 0; r < rows.size(); ++r) {
    data cells = list();
    for (const Cell& c : rows[r]) {
      data cell;
      cell.set("text", c.text);
      if (c.numeric) cell.set("num", true);
      if (c.code) cell.set("code", true);
      if (c.link) cell.set("link", true);
      setIf(cell, "flag", c.flag);
      cells << cell;
    }
    data row;
    row.set("cells", cells);
    if (r < rowClasses.size()) setIf(row, "rowClass", rowClasses[r]);
    rowList << row;
  }
  t.set("rows", rowList);
  return t;
}

std::string noteFor(const Analysis& a) {
  std::string note =
      a.mode == AnalyzeMode::Model
          ? "Every layout's sectors are <b>replayed</b> from the trace (" + htmlEscape(a.traceFile) +
                fmt::format(
                    ", {} records): per warp-level access, the 32-byte sectors the warp had not touched in "
                    "its recent accesses, scaled to the profile's execution counts. AoSoA is shown for "
                    "comparison; the rewriter does not emit it. A layout's cost (it decides) is its sectors plus "
                    "half its requested 128-byte lines plus its requests.",
                    a.traceRecords)
          : "Sectors for AoS are measured by the profile. Sectors for SoA and clustered layouts are <b>estimates</b> "
            "from each site's class and active lanes (coalesced sites taken as stride-1), not a replay of the "
            "accesses.";
  return a.forced ? note + " Layouts were <b>forced</b> by <code>--layout</code>." : note;
}

data summaryTable(const Analysis& a) {
  const bool model = a.mode == AnalyzeMode::Model;
  std::vector<std::string> headers = model ? std::vector<std::string>{"struct",
                                                                      "layout",
                                                                      "decision (margin)",
                                                                      "sectors AoS (replayed)",
                                                                      "SoA (replayed)",
                                                                      "clustered (replayed)",
                                                                      "AoSoA (replayed, not emitted)"}
                                           : std::vector<std::string>{"struct",
                                                                      "layout",
                                                                      "decision (margin)",
                                                                      "sectors AoS (measured)",
                                                                      "SoA (estimate)",
                                                                      "clustered (estimate)"};
  std::vector<std::vector<Cell>> rows;
  for (const StructDecision& d : a.structs) {
    std::vector<Cell> row{{d.name, false, true, true}, {decisionLayoutName(d)},
                          {decisionLine(a, d)},        {num(d.sectors.aos), true},
                          {num(d.sectors.soa), true},  {d.clustering ? num(d.sectors.clustered) : "–", true}};
    if (model) row.push_back({num(d.sectors.aosoa), true});
    rows.push_back(std::move(row));
  }
  return table(headers, rows);
}

// Model mode: the cost per candidate layout, the chosen one marked, AoSoA grey (not emitted).
void modelDecision(const StructDecision& d, data& s) {
  const std::string replayed =
      d.replayedShare < 0.999 ? fmt::format(" ({:.0f}% replayed)", 100 * d.replayedShare) : std::string();
  svg::BarChart chart;
  chart.description = fmt::format(
      "predicted cost per candidate layout: sectors from L2 plus {:g} per requested line plus {:g} per request",
      kL1WavefrontWeight, kRequestWeight);
  chart.axisLabel = fmt::format(
      "cost = predicted 32-byte sectors from L2 + requested 128-byte lines x {:g} + requests x {:g} (lower is better)",
      kL1WavefrontWeight, kRequestWeight);
  auto costBar = [&](const std::string& label, Layout l, double cost) {
    return bar(label + replayed, cost, num(cost), d.layout == l ? "#2a9d5c" : "#4a7bd0", false, d.layout == l);
  };
  chart.bars = {costBar("AoS", Layout::AoS, d.cost.aos), costBar("SoA", Layout::SoA, d.cost.soa)};
  if (hasClusters(d)) chart.bars.push_back(costBar("clustered", Layout::Clustered, d.cost.clustered));
  chart.bars.push_back(bar("AoSoA (not emitted)" + replayed, d.cost.aosoa, num(d.cost.aosoa), "#b0b0b0", false, false));
  if (!replayed.empty()) chart.labelWidth = 260;
  s.set("costTitle", "predicted cost per candidate layout");
  s.set("costChart", svg::barChart(chart));
  s.set("rule", fmt::format("the least cost among the layouts the rewriter emits, taken in the order AoS, aligned "
                            "to its size, clustered, SoA: the aligned record is chosen wherever it costs less (AoS's "
                            "bytes in fewer requests), a later layout must cost {:.0f}% less than the best before it. A "
                            "layout's cost is its predicted sectors from L2 plus {:g} per 128-byte line its requests "
                            "touch (L1 serves a request one line at a time) plus {:g} per request "
                            "(warp-level memory instruction: fields nvcc loads with one vector access share one), "
                            "for the executions that issue one (nvcc keeps a loop-invariant element in registers).",
                            100 * kModelMinGain, kL1WavefrontWeight, kRequestWeight));
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> classes;
  auto row = [&](const std::string& name, Layout l, double sectors, double requested, double cost,
                 const char* emitted) {
    rows.push_back({{name}, {num(sectors), true}, {num(requested), true}, {num(cost), true}, {emitted}});
    classes.push_back(name != "AoSoA (32)" && d.layout == l ? "chosen" : "");
  };
  row("AoS", Layout::AoS, d.sectors.aos, d.requested.aos, d.cost.aos, "yes");
  row("SoA", Layout::SoA, d.sectors.soa, d.requested.soa, d.cost.soa, "yes");
  if (hasClusters(d))
    row("clustered", Layout::Clustered, d.sectors.clustered, d.requested.clustered, d.cost.clustered, "yes");
  row("AoSoA (32)", Layout::AoS, d.sectors.aosoa, d.requested.aosoa, d.cost.aosoa,
      "no (the rewriter does not emit it)");
  s.set("costTable", table({"layout", "predicted sectors from L2 (replayed)", "requested sectors (from L1)",
                            "cost (decides)", "emitted"},
                           rows, classes));
}

// Paper mode: the executions voting for keeping the elements together against those voting for
// splitting them; predicted sectors are charted separately, as they do not decide.
void paperDecision(const Analysis& a, const StructDecision& d, data& s) {
  double together = 0, apart = 0;
  for (const SiteEvidence& e : d.sites) (e.verdict.weight > 0 ? together : apart) += std::fabs(e.verdict.weight);
  const bool keep = d.layout != Layout::SoA;
  svg::BarChart chart;
  chart.description = "the paper's votes: weighted executions for keeping elements together and for splitting them";
  chart.axisLabel = "votes = executions of uncoalesced and same-address sites (AoS), coalesced ones x n/32 (SoA)";
  chart.labelWidth = 220;
  chart.bars = {bar(hasClusters(d) && !a.forced ? "AoS / clustered (together)" : "AoS (together)", together,
                    num(together), keep ? "#2a9d5c" : "#4a7bd0", false, keep),
                bar("SoA (split)", apart, num(apart), keep ? "#4a7bd0" : "#2a9d5c", false, !keep)};
  s.set("costTitle", "the paper's weighted vote per candidate layout");
  s.set("costChart", svg::barChart(chart));
  s.set("rule", fmt::format("the paper's (Nakai & Ohno 2017): the weighted sum of the sites' votes, {:+.4g} here, "
                            "picks SoA when negative and keeps the elements together otherwise; a struct kept "
                            "together is split into the field access tree's clusters where the tree finds more "
                            "than one.",
                            together - apart));
  svg::BarChart traffic;
  traffic.description = "predicted 32-byte sectors per layout (AoS measured, the others estimated)";
  traffic.axisLabel = "32-byte sectors (solid: measured by the profile; hatched: estimate)";
  traffic.bars = {bar("AoS (measured)", d.sectors.aos, num(d.sectors.aos), "#4a7bd0", false, d.layout == Layout::AoS),
                  bar("SoA (estimate)", d.sectors.soa, num(d.sectors.soa), "", true, d.layout == Layout::SoA)};
  if (d.clustering)
    traffic.bars.push_back(bar("clustered (estimate)", d.sectors.clustered, num(d.sectors.clustered), "", true,
                               d.layout == Layout::Clustered));
  s.set("trafficChart", svg::barChart(traffic));
}

// Model mode's per-kernel sectors: each layout's change from AoS, slower kernels flagged.
void kernelChanges(const Analysis& a, const StructDecision& d, data& s) {
  // Paper mode has no per-kernel traffic (it replays nothing): the section is left out.
  if (a.mode != AnalyzeMode::Model) return;
  s.set("perKernel", true);
  if (d.kernels.empty()) {
    s.set("noKernels", "No kernel of the trace reached this struct's sites.");
    return;
  }
  auto change = [](double sectors, double aos) {
    return aos > 0 ? fmt::format("{} ({:+.0f}%)", num(sectors), 100 * changeFromAoS(sectors, aos)) : num(sectors);
  };
  std::vector<std::vector<Cell>> rows;
  for (const KernelSectors& k : d.kernels) {
    const bool slower = slowerUnderChosen(d, k);
    rows.push_back({{k.kernel, false, true},
                    {num(k.sectors.aos), true},
                    {change(k.sectors.soa, k.sectors.aos), true},
                    {change(k.sectors.clustered, k.sectors.aos), true},
                    {change(k.sectors.aosoa, k.sectors.aos), true},
                    {slower ? "" : "not slower", false, false, false,
                     slower ? fmt::format("slower: {:+.0f}% sectors",
                                          100 * changeFromAoS(k.sectors.under(d.layout), k.sectors.aos))
                            : ""}});
  }
  s.set("kernelTable",
        table({"kernel", "AoS: predicted sectors", "SoA: sectors (change from AoS)", "clustered: sectors (change)",
               "AoSoA: sectors (change)", std::string("under the chosen layout (") + reportLayoutName(d.layout) + ")"},
              rows));
}

// Field x kernel: thread-level executions of the field's sites in each kernel.
void heatMap(const StructDecision& d, data& s) {
  svg::HeatMap map;
  map.description = "executions of each field's accesses per kernel";
  map.rowAxis = "field";
  map.columnAxis = "kernel";
  map.cellMeaning = "thread-level executions of the field's accesses in the kernel";
  std::map<std::string, size_t> column;
  for (const SiteEvidence& e : d.sites)
    for (const std::string& k : e.site.kernels)
      if (column.try_emplace(k, map.columns.size()).second) map.columns.push_back(k);
  for (const FieldInfo& f : d.info.fields) map.rows.push_back(f.name);
  map.cells.assign(map.rows.size(), std::vector<double>(map.columns.size(), 0));
  for (const SiteEvidence& e : d.sites) {
    auto row = std::find(map.rows.begin(), map.rows.end(), e.site.field);
    if (row == map.rows.end() || e.site.kernels.empty()) continue;
    // A helper reached from several kernels: its counters do not say which ran it how often.
    for (const std::string& k : e.site.kernels)
      map.cells[row - map.rows.begin()][column[k]] += e.verdict.executions / double(e.site.kernels.size());
  }
  s.set("heatMap", svg::heatMap(map) +
                       "<p><small>Rows: the struct's fields; columns: the kernels that reach "
                       "its sites. Cell: thread-level executions of the field's reads and writes in "
                       "that kernel, from the profile's counters (a helper function's sites reached "
                       "from several kernels are split evenly among them).</small></p>\n");
}

// The source files' lines, read once per file; an unreadable file is remembered as such.
class SourceLines {
 public:
  const std::string* line(const std::string& file, unsigned number) {
    auto [it, fresh] = files_.try_emplace(file);
    if (fresh)
      if (auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true)) {
        llvm::StringRef rest = (*buffer)->getBuffer();
        while (!rest.empty()) {
          auto [first, tail] = rest.split('\n');
          it->second.push_back(first.rtrim("\r").ltrim(" \t").str());  // as Nsight Compute, unindented
          rest = tail;
        }
      }
    return number >= 1 && number <= it->second.size() ? &it->second[number - 1] : nullptr;
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

// Paper mode: the heaviest votes; model mode: the sites with the most predicted sectors.
std::vector<const SiteEvidence*> decidingSites(const Analysis& a, const StructDecision& d, size_t count) {
  std::vector<const SiteEvidence*> sites;
  for (const SiteEvidence& e : d.sites) sites.push_back(&e);
  if (a.mode == AnalyzeMode::Model)
    std::stable_sort(sites.begin(), sites.end(), [](const SiteEvidence* x, const SiteEvidence* y) {
      return std::max({x->sectors.aos, x->sectors.soa, x->sectors.clustered}) >
             std::max({y->sectors.aos, y->sectors.soa, y->sectors.clustered});
    });
  sites.resize(std::min(count, sites.size()));
  return sites;
}

void sourceLines(const Analysis& a, const StructDecision& d, size_t sitesPerStruct, SourceLines& sources, data& s) {
  const bool model = a.mode == AnalyzeMode::Model;
  const std::string kind = model ? "replayed" : "estimate";
  std::vector<std::string> sectorHeaders{model ? "AoS sectors (replayed)" : "AoS sectors (measured)",
                                         "SoA (" + kind + ")"};
  if (d.clustering) sectorHeaders.push_back("clustered (" + kind + ")");
  const std::vector<const SiteEvidence*> shown = decidingSites(a, d, sitesPerStruct);
  // Sites of one source line under one row of its text, lines in the order of their first site.
  std::vector<std::pair<std::string, std::vector<const SiteEvidence*>>> lines;
  for (const SiteEvidence* e : shown) {
    const std::string where = fmt::format("{}:{}", e->site.location.file, e->site.location.line);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == where; });
    if (it == lines.end()) it = lines.insert(lines.end(), {where, {}});
    it->second.push_back(e);
  }
  data lineList = list();
  for (const auto& [where, sites] : lines) {
    data line;
    line.set("location", where);
    line.set("span", std::to_string(8 + sectorHeaders.size()));
    const SourceLocation& loc = sites.front()->site.location;
    if (const std::string* text = sources.line(loc.file, loc.line); text && !text->empty()) line.set("text", *text);
    else line.set("unreadable", fmt::format("source text not shown: {} is not readable here", loc.file));
    data siteList = list();
    for (const SiteEvidence* e : sites) {
      data site;
      site.set("column", std::to_string(e->site.location.column));
      site.set("field", e->site.field);
      site.set("access", toString(e->site.access));
      site.set("cls", paperClassName(e->verdict.cls));
      site.set("excess", std::string(excessText(*e)) + " (" + nsightWord(*e) + ")");
      site.set("executions", fmt::format("{:.4g}", e->verdict.executions));
      site.set("perRequest", fmt::format("{:.2f}", sectorsPerRequest(*e)));
      site.set("ideal", fmt::format("{:.0f}", idealSectorsPerRequest(*e)));
      site.set("weight", fmt::format("{:+.4g}", e->verdict.weight));
      std::vector<std::string> sectors{num(e->sectors.aos), num(e->sectors.soa)};
      if (d.clustering) sectors.push_back(num(e->sectors.clustered));
      site.set("sectors", strings(sectors));
      siteList << site;
    }
    line.set("sites", siteList);
    lineList << line;
  }
  s.set("lines", lineList);
  s.set("sectorHeaders", strings(sectorHeaders));
  s.set("siteShown", std::to_string(shown.size()));
  s.set("siteCount", std::to_string(d.sites.size()));
  s.set("siteOrder", model ? "those with the most predicted sectors under any layout"
                           : "those with the heaviest votes in the paper's rule");
  s.set("legend", std::string(kSiteColumnsLegend));
}

data treeData(const FieldAccessTree& tree, const std::string& title) {
  data step;
  step.set("title", title);
  data kernels = list();
  for (const KernelNode& k : tree.kernels) {
    data kernel;
    kernel.set("name", k.name);
    data loops = list();
    for (const LoopNode& l : k.loops) {
      data loop;
      loop.set("label", l.label);
      loop.set("count", num(l.count));
      if (!l.measured) loop.set("estimated", true);
      loop.set("fields", fmt::format("{}", fmt::join(l.fields, ", ")));
      loops << loop;
    }
    kernel.set("loops", loops);
    kernels << kernel;
  }
  step.set("kernels", kernels);
  return step;
}

data clusteringData(const StructDecision& d) {
  const Clustering& c = *d.clustering;
  data out;
  data steps = list();
  steps << treeData(c.tree, "Step 1, as built from the site map and the profile:");
  steps << treeData(c.withinKernels, "Step 2, Loop nodes of equal Count merged within each kernel:");
  out.set("steps", steps);
  data across = list();
  for (const LoopNode& n : c.acrossKernels) {
    data node;
    node.set("count", num(n.count));
    node.set("fields", fmt::format("{}", fmt::join(n.fields, ", ")));
    node.set("kernel", n.kernel);
    node.set("label", n.label);
    across << node;
  }
  out.set("across", across);
  out.set("clusterNote", d.layout == Layout::Clustered ? ""
                         : c.clusters.size() > 1       ? " (the clustered candidate, not chosen)"
                                                       : " (one: the struct stays AoS)");
  std::vector<std::vector<Cell>> rows;
  for (const FieldCluster& f : c.clusters)
    rows.push_back({{f.name, false, true},
                    {fmt::format("{}", fmt::join(f.fields, ", "))},
                    {std::to_string(f.bytes), true},
                    {std::to_string(f.paddingBytes), true},
                    {num(f.count), true},
                    {f.origin}});
  data apart = list();
  for (const ClusterApart& a : c.apart) {
    data entry;
    entry.set("fields", fmt::format("{}", fmt::join(a.fields, ", ")));
    entry.set("together", num(a.together));
    entry.set("separate", num(a.apart));
    apart << entry;
  }
  out.set("apart", apart);
  out.set("clusterTable", table({"cluster", "fields", "bytes per element", "padding bytes", "Count (loop executions)",
                                 "from (loop nodes)"},
                                rows));
  return out;
}

data spans(const std::vector<ByteSpan>& list) {
  data out{data::type::list};
  for (const ByteSpan& b : list) {
    data span;
    span.set("kind", b.padding() ? "pad" : "field");
    span.set("size", std::to_string(std::max(1u, b.size)));
    span.set("label", b.padding() ? fmt::format("{} B", b.size) : b.name);
    span.set("title", b.padding() ? fmt::format("padding, bytes {}–{}", b.offset, b.offset + b.size - 1)
                                  : fmt::format("{}: bytes {}–{}", b.name, b.offset, b.offset + b.size - 1));
    out << span;
  }
  return out;
}

// Strips are drawn to scale: width in % of the widest, the struct before or its largest array.
std::string stripWidth(unsigned bytes, unsigned widest) {
  return fmt::format("{:.1f}", widest ? std::max(3.0, 100.0 * bytes / widest) : 100.0);
}

data byteData(const StructDecision& d) {
  data out;
  const std::vector<ArrayAfter> arrays = arraysAfter(d);
  unsigned widest = d.info.size;
  for (const ArrayAfter& a : arrays) widest = std::max(widest, a.bytes);
  out.set("width", stripWidth(d.info.size, widest));
  out.set("size", std::to_string(d.info.size));
  out.set("before", spans(bytesBefore(d.info)));
  data after = list();
  for (const ArrayAfter& a : arrays) {
    data array;
    array.set("width", stripWidth(a.bytes, widest));
    array.set("name", a.name);
    array.set("bytes", std::to_string(a.bytes));
    if (a.paddingBytes) array.set("padding", std::to_string(a.paddingBytes));
    array.set("spans", spans(a.spans));
    after << array;
  }
  out.set("after", after);
  if (d.layout == Layout::SoA)
    out.set("afterTitle", "after (SoA, one array per field, no padding; " + elementGrowth(d) + ")");
  if (d.layout == Layout::Clustered)
    out.set("afterTitle", "after (clustered, one array per cluster; " + elementGrowth(d) + ")");
  return out;
}

// Both modes' picks where the data allows: a model-mode analysis holds the paper rule's inputs;
// the paper mode's holds no replay (the page's note says what it decided on).
data picks(const Analysis& a, const StructDecision& d) {
  data out = list();
  if (a.forced || !executed(d)) return out;
  if (a.mode == AnalyzeMode::Model) {
    if (std::optional<Layout> paper = paperPick(d); paper && *paper != d.layout)
      out << data{
          fmt::format("The two analysis modes pick differently: model mode (this report) picks {}, the "
                      "paper's rule (--mode paper) would pick {}.",
                      reportLayoutName(d.layout), reportLayoutName(*paper))};
    else if (paper) out << data{fmt::format("The paper's rule (--mode paper) picks {} too.", reportLayoutName(*paper))};
  }
  return out;
}

data structData(const Analysis& a, const StructDecision& d, size_t sitesPerStruct, SourceLines& sources) {
  data s;
  s.set("name", d.name);
  s.set("layout", decisionLayoutName(d));
  const StructPlan* plan = a.plan.findStruct(d.name);
  setIf(s, "reason", plan ? plan->reason : "");
  s.set("picks", picks(a, d));
  if (auto r = a.rewrite.find(d.name); r != a.rewrite.end()) {
    if (r->second.applied) {
      s.set("rewriteApplied", true);
    } else {
      data refused;
      refused.set("reasons", strings(r->second.reasons));
      s.set("rewriteRefused", refused);
    }
  }
  if (!d.info.fields.empty()) s.set("bytes", byteData(d));
  if (!executed(d)) return s;
  s.set("executed", true);
  if (a.mode == AnalyzeMode::Model) modelDecision(d, s);
  else paperDecision(a, d, s);
  kernelChanges(a, d, s);
  heatMap(d, s);
  sourceLines(a, d, sitesPerStruct, sources, s);
  if (d.clustering) s.set("clustering", clusteringData(d));
  return s;
}

}  // namespace

std::string renderHtmlReport(const Analysis& analysis, size_t sitesPerStruct) {
  data page;
  page.set("ruleTitle", analysis.mode == AnalyzeMode::Model
                            ? "the traffic model (each layout's sectors replayed from the trace)"
                            : "the paper's (Nakai & Ohno 2017: the sites' classes, weighted by executions)");
  page.set("device", analysis.profileDevice.empty() ? "an unknown device" : analysis.profileDevice);
  page.set("note", noteFor(analysis));
  page.set("summary", summaryTable(analysis));
  SourceLines sources;
  data structs = list();
  for (const StructDecision& d : analysis.structs) structs << structData(analysis, d, sitesPerStruct, sources);
  page.set("structs", structs);
  if (analysis.hw) page.set("hw", renderHwHtml(*analysis.hw));
  page.set("table", data{partial{[] { return std::string(reportHtmlTablePartial()); }}});
  mustache tmpl{std::string(reportHtmlPage())};
  return tmpl.render(page);
}

}  // namespace relayout
