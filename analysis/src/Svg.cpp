#include "relayout/analysis/Svg.h"

#include "HtmlEscape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace relayout::svg {

namespace {

std::string esc(const std::string& text) { return htmlEscape(text); }

std::string open(double width, double height, const std::string& description, const std::string& cssClass) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "role=\"img\" aria-label=\"{}\"><title>{}</title>\n",
      cssClass, width, height, esc(description), esc(description));
}

// Estimates are hatched; the pattern lives in each chart so that every chart stands alone.
constexpr const char* kHatch =
    "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f2c94c\"/><line x1=\"0\" y1=\"0\" "
    "x2=\"0\" y2=\"6\" stroke=\"#c99a06\" stroke-width=\"2\"/></pattern></defs>\n";

}  // namespace

std::string barChart(const BarChart& chart) {
  constexpr double row = 24, barHeight = 16, top = 6;
  double most = chart.reference.value_or(0);
  for (const Bar& b : chart.bars) most = std::max({most, b.value, b.rangeMax.value_or(0)});
  const double scale = most > 0 ? chart.plotWidth / (most * 1.02) : 0;
  const double left = chart.labelWidth, plotBottom = top + row * chart.bars.size();
  const double height = plotBottom + (chart.reference ? 18 : 0) + (chart.axisLabel.empty() ? 4 : 22);
  std::string out = open(left + chart.plotWidth + 170, height, chart.description, "chart bars");
  if (std::any_of(chart.bars.begin(), chart.bars.end(), [](const Bar& b) { return b.hatched; })) out += kHatch;
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double y = top + row * i, width = std::max(1.0, b.value * scale);
    const double end = left + std::max(width, b.rangeMax.value_or(0) * scale);
    out += fmt::format("<text x=\"0\" y=\"{:.0f}\">{}</text>", y + 12, esc(b.label));
    out += fmt::format(
        "<rect class=\"bar{}\" x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\" "
        "stroke=\"{}\" stroke-width=\"{}\"><title>{}: {}</title></rect>",
        b.marked ? " marked" : "", left, y, width, barHeight, b.hatched ? "url(#hatch)" : b.fill,
        b.marked ? "#111" : "#555", b.marked ? 3 : 1, esc(b.label), esc(b.valueText));
    if (b.rangeMin && b.rangeMax)
      out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#222\"/>",
                         left + *b.rangeMin * scale, y + barHeight / 2, left + *b.rangeMax * scale, y + barHeight / 2);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\">{}{}</text>\n", end + 6, y + 12, esc(b.valueText),
                       b.marked ? esc(" \u25C0 " + chart.markText) : "");
  }
  if (chart.reference) {
    const double x = left + *chart.reference * scale;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"0\" x2=\"{0:.1f}\" y2=\"{1:.0f}\" stroke=\"#888\" "
        "stroke-dasharray=\"4 3\"/><text x=\"{0:.1f}\" y=\"{2:.0f}\" text-anchor=\"middle\">{3}</text>\n",
        x, plotBottom, plotBottom + 14, esc(chart.referenceLabel));
  }
  if (!chart.axisLabel.empty())
    out += fmt::format("<text class=\"axis\" x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", left, height - 6,
                       esc(chart.axisLabel));
  return out + "</svg>\n";
}

std::string heatMap(const HeatMap& map) {
  constexpr double cellWidth = 120, cellHeight = 22, header = 34;
  const double left = 120, width = left + cellWidth * map.columns.size() + 10;
  const double gridBottom = header + cellHeight * map.rows.size();
  double low = 0, high = 0;
  for (const auto& row : map.cells)
    for (double v : row)
      if (v > 0) low = low > 0 ? std::min(low, v) : v, high = std::max(high, v);
  // The legend under the grid sets the least width (about 7 pixels a character).
  const double legendWidth = 7.0 * (map.cellMeaning.size() + 50);
  std::string out = open(std::max(width, legendWidth), gridBottom + 40, map.description, "chart heatmap");
  out += fmt::format("<text class=\"axis\" x=\"0\" y=\"12\">{} \u2193 / {} \u2192</text>\n", esc(map.rowAxis),
                     esc(map.columnAxis));
  for (size_t c = 0; c < map.columns.size(); ++c)
    out += fmt::format("<text x=\"{:.0f}\" y=\"28\" text-anchor=\"middle\">{}</text>", left + cellWidth * (c + 0.5),
                       esc(map.columns[c].size() > 17 ? map.columns[c].substr(0, 16) + "\u2026" : map.columns[c]));
  out += "\n";
  for (size_t r = 0; r < map.rows.size(); ++r) {
    const double y = header + cellHeight * r;
    out += fmt::format("<text x=\"0\" y=\"{:.0f}\">{}</text>", y + 15, esc(map.rows[r]));
    for (size_t c = 0; c < map.columns.size(); ++c) {
      const double v = r < map.cells.size() && c < map.cells[r].size() ? map.cells[r][c] : 0;
      // Log scale: the counts span orders of magnitude; 0 stays white.
      const double t = v <= 0 ? -1 : high > low ? std::log(v / low) / std::log(high / low) : 1;
      const std::string fill = t < 0 ? "#ffffff" : fmt::format("hsl(210,70%,{:.0f}%)", 92 - 55 * t);
      const std::string text = v > 0 ? fmt::format("{:.3g}", v) : "";
      out += fmt::format(
          "<rect class=\"cell\" x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
          "fill=\"{}\" stroke=\"#ccc\"><title>{} \u00D7 {}: {}</title></rect>",
          left + cellWidth * c, y, cellWidth, cellHeight, fill, esc(map.rows[r]), esc(map.columns[c]),
          v > 0 ? text : "0");
      if (v > 0)
        out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
                           left + cellWidth * (c + 0.5), y + 15, t > 0.6 ? "#fff" : "#111", text);
    }
    out += "\n";
  }
  out += fmt::format("<text class=\"axis\" x=\"0\" y=\"{:.0f}\">Cell: {} (colour: log scale, white: none)</text>\n",
                     gridBottom + 20, esc(map.cellMeaning));
  return out + "</svg>\n";
}

}  // namespace relayout::svg
