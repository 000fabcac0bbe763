// analysis: from site maps and a profile to a layout plan, with the evidence for each decision.
#pragma once

#include "relayout/analysis/AccessTree.h"
#include "relayout/analysis/Classify.h"
#include "relayout/analysis/HwCompare.h"
#include "relayout/core/Plan.h"
#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <vector>

namespace relayout {

// 32-byte sectors per layout: AoS as measured, the others predicted (Traffic.h: estimates).
struct LayoutSectors {
  double aos = 0;
  double soa = 0;
  double clustered = 0;  // meaningful when the struct has clusters
};

struct SiteEvidence {
  std::string source;  // the site map's source path
  SiteInfo site;
  SiteCounters counters;
  SiteVerdict verdict;
  unsigned blockPeriod = 1;
  LayoutSectors sectors;
};

struct StructDecision {
  std::string name;
  Layout layout = Layout::AoS;
  double score = 0;                  // sum of the site weights
  std::vector<SiteEvidence> sites;   // sorted by |weight|, largest first
  std::optional<Clustering> clustering;  // when the rule kept AoS and some site executed
  LayoutSectors sectors;             // summed over the sites
};

struct Analysis {
  std::string profileDevice;
  std::vector<StructDecision> structs;
  Plan plan;
  std::optional<HwComparison> hw;  // the profile has hardware metrics (relayout profile --hw)
};

struct SiteMapFile {
  std::string path;
  SiteMap map;
};

struct AnalyzeOptions {
  bool clusters = true;   // split an AoS struct into the field access tree's clusters
  LoopCounts loopCounts;  // measured loop Counts; others are derived from site counters
};

// Paper mode. Refuses a profile that was not recorded from these sources (hash or site count
// differ), naming the files.
llvm::Expected<Analysis> analyzePaper(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                      llvm::StringRef profilePath, const AnalyzeOptions& options = {});

// Human-readable reports of an analysis.
std::string renderTerminalReport(const Analysis& analysis, size_t sitesPerStruct = 5);
std::string renderMarkdownReport(const Analysis& analysis, size_t sitesPerStruct = 10);
// One self-contained page (inline CSS and SVG, no scripts): tree, clusters, sites, traffic chart.
std::string renderHtmlReport(const Analysis& analysis, size_t sitesPerStruct = 10);
// The same for machines: "relayout-report", version 1 (docs/analysis.md, "Reports").
nlohmann::json renderJsonReport(const Analysis& analysis, size_t sitesPerStruct = 20);

}  // namespace relayout
