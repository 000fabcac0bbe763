// Hardware cross-check: relayout's own sector counts per source line next to what the GPU counted
// on the same line (a profile recorded with `relayout profile --hw`; docs/formats.md, "Hardware
// metrics"; docs/analysis.md, "Hardware cross-check").
#pragma once

#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace relayout {

struct SiteMapFile;  // Analyze.h

enum class HwAgreement {
  Agree,           // sectors per warp-level access within kHwTolerance of each other
  Differ,          // further apart
  NoHardwareData,  // the hardware counted no global memory instruction on the line
  NotExecuted,     // relayout classified no execution of the line's sites
};
const char* toString(HwAgreement agreement);

// Agreement: |relayout - hardware| <= kHwTolerance * max(relayout, hardware), on sectors per
// warp-level execution.
inline constexpr double kHwTolerance = 0.25;

// One source line that has sites.
struct HwCompareRow {
  std::string file;                // the site map's path
  unsigned line = 0;
  std::vector<std::string> sites;  // "Struct.member read" per site on the line, in site order
  std::vector<std::string> functions;  // the hardware lines' functions that were joined
  double toolWarpExecs = 0;        // sum of the sites' warp_execs x block_period
  double toolSectorsPerExec = 0;   // sum of the sites' sectors / sum of their warp_execs
  double expectedInstructions = 0; // toolWarpExecs, read-write sites counted twice (load + store)
  uint64_t hwInstructions = 0;     // global memory instructions executed on the line (warp level)
  uint64_t hwSectors = 0;
  uint64_t hwIdealSectors = 0;
  double hwSectorsPerInst = 0;
  double hwIdealPerInst = 0;
  HwAgreement agreement = HwAgreement::NoHardwareData;
};

struct HwComparison {
  std::string device;
  std::string chip;
  uint64_t runtimeInstructions = 0;   // left out of the hardware lines (the runtime's own code)
  uint64_t unmappedInstructions = 0;  // left out of the hardware lines (no source line)
  std::vector<HwCompareRow> rows;     // by file, then line
};

// Two spellings of one source file: equal, or one a trailing part of the other at a '/'
// (site maps keep the path as given, the line tables the absolute one).
bool sameSourceFile(const std::string& a, const std::string& b);

// Joins the site maps' sites with the hardware lines by (file, line). Units the profile has no
// data for are skipped (analyzePaper refuses them before).
HwComparison compareWithHardware(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                 const HwProfile& hw);

// The "Hardware cross-check" section of each report.
std::string renderHwTerminal(const HwComparison& hw);
std::string renderHwMarkdown(const HwComparison& hw);
std::string renderHwHtml(const HwComparison& hw);
nlohmann::json hwComparisonJson(const HwComparison& hw);

}  // namespace relayout
