// The batch summary as one self-contained HTML page (no scripts, nothing fetched): a table per
// application, a chart of the kernel speed-ups (relayout's and the hand-written variants') and one
// of what profiling cost, rendered from a Mustache template.
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
// "soa 1.60×, best 1.75×" (a variant whose output differed or that did not run: "soa –");
// "1.05×" for the profiled run's kernel time over the original's.
std::string variantsText(const nlohmann::json& app);
// "soa 0.62 → 1.59× (applied), clustered 0.70 → 1.52×": each candidate's predicted cost (a share of
// the original's) and measured kernel speed-up.
std::string candidatesText(const nlohmann::json& app);
std::string profileCostText(const nlohmann::json& app);

}  // namespace relayout::batch
