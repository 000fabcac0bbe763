// The batch summary as one self-contained HTML page (no scripts, nothing fetched): a table per
// application and a chart of the kernel speed-ups, rendered from a Mustache template.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace relayout::batch {

// `summary` is summary.json's document (docs/formats.md, "Batch").
std::string renderSummaryPage(const nlohmann::json& summary);

// One application of it, as summary.md and summary.html both show it: "Particle soa, Node aos",
// "1.59× (1.58–1.60)"; "–" where there is none.
std::string structsText(const nlohmann::json& app);
std::string speedupText(const nlohmann::json& app);

}  // namespace relayout::batch
