// The batch summary as one self-contained HTML page (no scripts, nothing fetched): a table per
// application and a chart of the kernel speed-ups, rendered from a Mustache template.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace relayout::batch {

// `summary` is summary.json's document (docs/formats.md, "Batch").
std::string renderSummaryPage(const nlohmann::json& summary);

}  // namespace relayout::batch
