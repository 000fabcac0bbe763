#include "batch/SummaryPage.h"

#include "relayout/analysis/Svg.h"

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include <algorithm>

namespace relayout::batch {

namespace {

// The page. Mustache escapes {{values}} for HTML; the chart comes as SVG from relayout/analysis/Svg.h.
constexpr const char* kTemplate = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>relayout batch</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
td.num { text-align: right; } .verified { color: #176117; } .failed, .timeout, .rejected, .slower { color: #a11; }
svg text { font-size: 12px; }
</style></head><body>
<h1>relayout batch</h1>
<p>Manifest <code>{{manifest}}</code>; {{gpus}} GPU(s) visible where <code>relayout batch</code> last ran (with --prepare and --collect, the programs ran elsewhere). {{verified}} of {{total}} applications verified faster and applied, {{untouched}} untouched.</p>
<h2>Kernel speed-up of relayout's rewrite and of the hand-written variants the manifest names (median of the runs; the line spans their range; a grey bar: measured, not applied)</h2>
{{#hasChart}}
{{{chart}}}{{/hasChart}}
{{^hasChart}}<p>No application was verified on a GPU yet: no speed-up to plot.</p>{{/hasChart}}
<h2>What profiling cost: the profiled run's kernel time over the original's</h2>
{{#hasCostChart}}
{{{costChart}}}{{/hasCostChart}}
{{^hasCostChart}}<p>No application has both a profile and a verified original run yet.</p>{{/hasCostChart}}
<h2>Applications</h2>
<table><tr><th>application</th><th>result</th><th>structs and layouts</th><th>kernel speed-up</th><th>candidates: predicted cost → measured speed-up</th><th>hand-written variants (kernel speed-up)</th><th>profile cost</th><th>time</th><th>why</th></tr>
{{#apps}}
<tr><td>{{name}}</td><td class="{{statusClass}}">{{status}}</td><td>{{structs}}</td><td class="num">{{speedup}}</td><td>{{candidates}}</td><td>{{variants}}</td><td class="num">{{profileCost}}</td><td class="num">{{seconds}}</td><td>{{why}}</td></tr>
{{/apps}}
</table>
<p>Results:</p><ul>
{{#legend}}<li><b>{{status}}</b>: {{meaning}}</li>
{{/legend}}</ul>
<p>Kernel speed-up: the original's median kernel time over the applied rewrite's (CUPTI, all kernels
of the run; for untouched and slower, the best candidate's, not applied). Candidates: each rewrite
measured, its predicted cost as a share of the original's (the model's view) beside its measured
kernel speed-up (the GPU's). Profile cost: the instrumented run's summed kernel time over the
original's median; 1× is a profile at the cost of one plain run.</p>
</body></html>
)";

std::string timesText(const nlohmann::json& k) {
  return fmt::format("{:.2f}× ({:.2f}–{:.2f})", k.value("median", 0.0), k.value("min", 0.0), k.value("max", 0.0));
}

svg::Bar speedupBar(const std::string& label, const nlohmann::json& k, const char* fill) {
  svg::Bar b;
  b.label = label;
  b.value = k.value("median", 0.0);
  b.valueText = fmt::format("{:.2f}×", b.value);
  b.fill = b.value >= 1 ? fill : "#c0504d";
  b.rangeMin = k.value("min", 0.0);
  b.rangeMax = k.value("max", 0.0);
  return b;
}

}  // namespace

std::string structsText(const nlohmann::json& app) {
  std::string out;
  for (const nlohmann::json& s : app.value("structs", nlohmann::json::array()))
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", s.value("name", ""), s.value("layout", ""));
  return out.empty() ? "–" : out;
}

std::string speedupText(const nlohmann::json& app) {
  const nlohmann::json k = app.value("kernel_speedup", nlohmann::json());
  return k.is_object() ? timesText(k) : "–";
}

std::string candidatesText(const nlohmann::json& app) {
  std::string out;
  const nlohmann::json selection = app.value("selection", nlohmann::json());
  if (!selection.is_object()) return "–";
  for (const nlohmann::json& c : selection.value("candidates", nlohmann::json::array())) {
    const nlohmann::json sp = c.value("speedup", nlohmann::json());
    out +=
        fmt::format("{}{} {:.2f} → {}{}", out.empty() ? "" : ", ", c.value("name", ""), c.value("predicted_ratio", 1.0),
                    sp.is_object()                       ? fmt::format("{:.2f}×", sp.value("median", 0.0))
                    : c.value("outputs", "") == "differ" ? std::string("differs")
                                                         : "–",
                    c.value("applied", false) ? " (applied)" : "");
  }
  return out.empty() ? "none" : out;
}

std::string variantsText(const nlohmann::json& app) {
  std::string out;
  for (const nlohmann::json& v : app.value("variants", nlohmann::json::array())) {
    const nlohmann::json k = v.value("kernel_speedup", nlohmann::json());
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", v.value("name", ""),
                       k.is_object() ? fmt::format("{:.2f}×", k.value("median", 0.0)) : "–");
  }
  return out.empty() ? "–" : out;
}

std::string profileCostText(const nlohmann::json& app) {
  const nlohmann::json cost = app.value("profile_cost", nlohmann::json());
  return cost.is_number() ? fmt::format("{:.2f}×", cost.get<double>()) : "–";
}

std::string renderSummaryPage(const nlohmann::json& summary) {
  using kainjow::mustache::data;
  using kainjow::mustache::mustache;
  const nlohmann::json apps = summary.value("applications", nlohmann::json::array());
  data page;
  page.set("manifest", summary.value("manifest", ""));
  page.set("gpus", std::to_string(summary.value("gpus", 0)));
  size_t verified = 0, untouched = 0;
  for (const nlohmann::json& a : apps) {
    verified += a.value("status", "") == "verified";
    untouched += a.value("status", "") == "untouched";
  }
  page.set("verified", std::to_string(verified));
  page.set("untouched", std::to_string(untouched));
  page.set("total", std::to_string(apps.size()));

  // One bar per application verified on a GPU: its median, a whisker across its runs' range.
  relayout::svg::BarChart chart;
  chart.description = "kernel speed-up per application";
  chart.axisLabel = "kernel speed-up: the original's kernel time over the rewritten one's (median of the runs)";
  chart.reference = 1.0;
  chart.referenceLabel = "1× (as fast as the original)";
  chart.labelWidth = 200;
  relayout::svg::BarChart costChart;
  costChart.description = "profile cost per application";
  costChart.axisLabel = "profile cost: the profiled run's kernel time over the original's";
  costChart.reference = 1.0;
  costChart.referenceLabel = "1× (one plain run)";
  costChart.labelWidth = 200;
  data rows{data::type::list};
  for (const nlohmann::json& a : apps) {
    const std::string name = a.value("name", "");
    const nlohmann::json k = a.value("kernel_speedup", nlohmann::json());
    data r;
    r.set("name", name);
    r.set("status", a.value("status", ""));
    r.set("statusClass", a.value("status", ""));
    r.set("structs", structsText(a));
    r.set("seconds", fmt::format("{:.0f} s", a.value("seconds", 0.0)));
    r.set("why", a.value("why", ""));
    r.set("speedup", speedupText(a));
    r.set("variants", variantsText(a));
    r.set("candidates", candidatesText(a));
    r.set("profileCost", profileCostText(a));
    rows << r;
    const nlohmann::json variants = a.value("variants", nlohmann::json::array());
    // A rewrite that was measured but not applied (slower, or not faster beyond the runs' spread)
    // is shown as such: the program kept its original code.
    const bool applied = a.value("status", "") == "verified";
    if (k.is_object()) {
      svg::Bar b = speedupBar(variants.empty() ? name : name + ": relayout", k, "#4a8f4a");
      if (!applied) b.label += " (not applied)", b.fill = "#9a9a9a";
      chart.bars.push_back(std::move(b));
    }
    for (const nlohmann::json& v : variants)
      if (const nlohmann::json vk = v.value("kernel_speedup", nlohmann::json()); vk.is_object())
        chart.bars.push_back(speedupBar(name + ": " + v.value("name", "") + " (by hand)", vk, "#6d8fc7"));
    if (const nlohmann::json cost = a.value("profile_cost", nlohmann::json()); cost.is_number()) {
      svg::Bar b;
      b.label = name;
      b.value = cost.get<double>();
      b.valueText = profileCostText(a);
      b.fill = b.value <= 1.5 ? "#4a7bd0" : "#c0504d";
      costChart.bars.push_back(std::move(b));
    }
  }
  page.set("apps", rows);
  data legend{data::type::list};
  for (const nlohmann::json& entry : summary.value("legend", nlohmann::json::array())) {
    data l;
    l.set("status", entry.value("status", ""));
    l.set("meaning", entry.value("meaning", ""));
    legend << l;
  }
  page.set("legend", legend);
  page.set("hasChart", !chart.bars.empty());
  page.set("chart", relayout::svg::barChart(chart));
  page.set("hasCostChart", !costChart.bars.empty());
  page.set("costChart", relayout::svg::barChart(costChart));
  mustache tmpl{kTemplate};
  return tmpl.render(page);
}

}  // namespace relayout::batch
