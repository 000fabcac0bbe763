// Small inline SVG charts for relayout's self-contained HTML pages (the analysis report and the
// batch summary): no scripts, nothing fetched, every text escaped here.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace relayout::svg {

struct Bar {
  std::string label;      // left of the bar
  double value = 0;       // the bar's length, on the chart's scale from 0
  std::string valueText;  // right of the bar
  std::string fill = "#4a7bd0";
  bool hatched = false;                      // an estimate rather than a measurement or a replay
  bool marked = false;                       // the chosen one: outlined and labelled with the chart's markText
  std::optional<double> rangeMin, rangeMax;  // a whisker across the range of runs
};

struct BarChart {
  std::string description;  // what the chart shows: the aria-label and the SVG <title>
  std::string axisLabel;    // under the bars: what their length measures
  std::vector<Bar> bars;
  std::optional<double> reference;  // a dashed vertical line at this value ...
  std::string referenceLabel;       // ... with this text under it
  std::string markText = "chosen";
  int labelWidth = 150;
  int plotWidth = 420;
};

// Horizontal bars, one row each, scaled to the largest value (or range end, or reference).
std::string barChart(const BarChart& chart);

struct HeatMap {
  std::string description;  // the aria-label and the SVG <title>
  std::string rowAxis;      // what the rows are ("field")
  std::string columnAxis;   // what the columns are ("kernel")
  std::string cellMeaning;  // what a cell's number and colour measure
  std::vector<std::string> rows, columns;
  std::vector<std::vector<double>> cells;  // [row][column]; 0 is drawn blank
};

// A grid of cells coloured on a log scale from the smallest non-zero cell to the largest, the value
// written in each; the legend under it says what a cell measures.
std::string heatMap(const HeatMap& map);

}  // namespace relayout::svg
