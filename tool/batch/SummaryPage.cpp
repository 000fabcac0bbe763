#include "SummaryPage.h"

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include <algorithm>

namespace relayout::batch {

namespace {

// The page. Mustache escapes {{values}} for HTML; the chart's geometry comes computed.
constexpr const char* kTemplate = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>relayout batch</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
td.num { text-align: right; } .verified { color: #176117; } .failed, .timeout, .rejected { color: #a11; }
svg text { font-size: 12px; }
</style></head><body>
<h1>relayout batch</h1>
<p>Manifest <code>{{manifest}}</code>; {{gpus}} GPU(s) visible where <code>relayout batch</code> last ran (with --prepare and --collect, the programs ran elsewhere). {{verified}} of {{total}} applications verified.</p>
<h2>Kernel speed-up of the rewritten program (median of the runs; the line spans their range)</h2>
{{#hasChart}}
<svg xmlns="http://www.w3.org/2000/svg" width="{{width}}" height="{{height}}" role="img" aria-label="kernel speed-up per application">
<line x1="{{one}}" y1="0" x2="{{one}}" y2="{{axisBottom}}" stroke="#888" stroke-dasharray="4 3"/>
<text x="{{one}}" y="{{axisLabel}}" text-anchor="middle">1× (as fast as the original)</text>
{{#bars}}
<text x="0" y="{{textY}}">{{name}}</text>
<rect x="{{x}}" y="{{y}}" width="{{w}}" height="14" fill="{{colour}}"><title>{{name}}: {{label}}</title></rect>
<line x1="{{minX}}" y1="{{midY}}" x2="{{maxX}}" y2="{{midY}}" stroke="#222"/>
<text x="{{labelX}}" y="{{textY}}">{{label}}</text>
{{/bars}}
</svg>
{{/hasChart}}
{{^hasChart}}<p>No application was verified on a GPU yet: no speed-up to plot.</p>{{/hasChart}}
<h2>Applications</h2>
<table><tr><th>application</th><th>result</th><th>structs and layouts</th><th>kernel speed-up</th><th>time</th><th>why</th></tr>
{{#apps}}
<tr><td>{{name}}</td><td class="{{statusClass}}">{{status}}</td><td>{{structs}}</td><td class="num">{{speedup}}</td><td class="num">{{seconds}}</td><td>{{why}}</td></tr>
{{/apps}}
</table>
<p>Result: <b>verified</b> the rewritten program printed what the original printed in every run;
<b>rewritten-unverified</b> rewritten but not run on a GPU; <b>rejected</b> the outputs differed;
<b>built-for-profiling</b> waiting for its profiled run (--prepare). Kernel speed-up: the original's
kernel time over the rewritten one's (CUPTI, all kernels of the run).</p>
</body></html>
)";

}  // namespace

std::string structsText(const nlohmann::json& app) {
  std::string out;
  for (const nlohmann::json& s : app.value("structs", nlohmann::json::array()))
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", s.value("name", ""), s.value("layout", ""));
  return out.empty() ? "–" : out;
}

std::string speedupText(const nlohmann::json& app) {
  const nlohmann::json k = app.value("kernel_speedup", nlohmann::json());
  if (!k.is_object()) return "–";
  return fmt::format("{:.2f}× ({:.2f}–{:.2f})", k.value("median", 0.0), k.value("min", 0.0), k.value("max", 0.0));
}

std::string renderSummaryPage(const nlohmann::json& summary) {
  using kainjow::mustache::data;
  using kainjow::mustache::mustache;
  const nlohmann::json apps = summary.value("applications", nlohmann::json::array());
  data page;
  page.set("manifest", summary.value("manifest", ""));
  page.set("gpus", std::to_string(summary.value("gpus", 0)));
  size_t verified = 0;
  double most = 1;
  for (const nlohmann::json& a : apps) {
    verified += a.value("status", "") == "verified";
    if (a["kernel_speedup"].is_object()) most = std::max(most, a["kernel_speedup"].value("max", 0.0));
  }
  page.set("verified", std::to_string(verified));
  page.set("total", std::to_string(apps.size()));

  // Bars from 0 to each median on a scale of 0..most, after a column of names.
  const double left = 130, plot = 420, scale = plot / (most * 1.05);
  data bars{data::type::list}, rows{data::type::list};
  int row = 0;
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
    rows << r;
    if (!k.is_object()) continue;
    const double y = 10 + 22.0 * row++, median = k.value("median", 0.0);
    data b;
    b.set("name", name);
    b.set("label", fmt::format("{:.2f}×", median));
    b.set("x", fmt::format("{:.1f}", left));
    b.set("y", fmt::format("{:.1f}", y));
    b.set("w", fmt::format("{:.1f}", median * scale));
    b.set("colour", median >= 1 ? "#4a8f4a" : "#c0504d");
    b.set("minX", fmt::format("{:.1f}", left + k.value("min", 0.0) * scale));
    b.set("maxX", fmt::format("{:.1f}", left + k.value("max", 0.0) * scale));
    b.set("midY", fmt::format("{:.1f}", y + 7));
    b.set("textY", fmt::format("{:.1f}", y + 11));
    b.set("labelX", fmt::format("{:.1f}", left + k.value("max", 0.0) * scale + 6));
    bars << b;
  }
  page.set("apps", rows);
  page.set("bars", bars);
  page.set("hasChart", row > 0);
  page.set("width", fmt::format("{:.0f}", left + plot + 70));
  page.set("height", fmt::format("{:.0f}", 30 + 22.0 * row));
  page.set("axisBottom", fmt::format("{:.0f}", 10 + 22.0 * row));
  page.set("axisLabel", fmt::format("{:.0f}", 24 + 22.0 * row));
  page.set("one", fmt::format("{:.1f}", left + scale));
  mustache tmpl{kTemplate};
  return tmpl.render(page);
}

}  // namespace relayout::batch
