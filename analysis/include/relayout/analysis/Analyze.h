// analysis: from site maps and a profile to a layout plan, with the evidence for each decision.
#pragma once

#include "relayout/analysis/Classify.h"
#include "relayout/core/Plan.h"
#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

struct SiteEvidence {
  std::string source;  // the site map's source path
  SiteInfo site;
  SiteCounters counters;
  SiteVerdict verdict;
};

struct StructDecision {
  std::string name;
  Layout layout = Layout::AoS;
  double score = 0;                  // sum of the site weights
  std::vector<SiteEvidence> sites;   // sorted by |weight|, largest first
};

struct Analysis {
  std::string profileDevice;
  std::vector<StructDecision> structs;
  Plan plan;
};

struct SiteMapFile {
  std::string path;
  SiteMap map;
};

// Paper mode. Refuses a profile that was not recorded from these sources (hash or site count
// differ), naming the files.
llvm::Expected<Analysis> analyzePaper(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                      llvm::StringRef profilePath);

// Human-readable reports of an analysis.
std::string renderTerminalReport(const Analysis& analysis, size_t sitesPerStruct = 5);
std::string renderMarkdownReport(const Analysis& analysis, size_t sitesPerStruct = 10);

}  // namespace relayout
