// analysis: from site maps and a profile to a layout plan, with the evidence for each decision.
#pragma once

#include "relayout/analysis/AccessTree.h"
#include "relayout/analysis/Classify.h"
#include "relayout/analysis/HwCompare.h"
#include "relayout/analysis/Model.h"
#include "relayout/analysis/Ptx.h"
#include "relayout/core/Plan.h"
#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <llvm/Support/Error.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace relayout {

// How `relayout analyze` decides (docs/analysis.md): the paper's weighted sum, or the traffic
// model replaying the trace. The default is this one constant.
enum class AnalyzeMode { Paper, Model };
inline constexpr AnalyzeMode kDefaultAnalyzeMode = AnalyzeMode::Paper;
const char* toString(AnalyzeMode mode);

// Model mode decides on a cost per layout: the sectors a warp fetches past its share of L1 (from
// L2), plus kL1WavefrontWeight per 128-byte line each warp request touches, hit or not: L1 serves a
// request one line (tag) at a time, whatever number of the line's sectors it needs, so four bytes
// of 32 lanes 4 bytes apart (one line) cost what 16 bytes apart (four lines) cost a quarter of
// (docs/analysis.md, "Decision"). Counting sectors instead over-charged records read field by
// field within one line (color_grade's 4-byte pixels, nbody's bodies): their SoA rewrites, predicted
// cheaper, ran 5% and 20% slower on an H200.
inline constexpr double kL1WavefrontWeight = 0.5;
// Model mode also charges each warp-level memory instruction (request) for its issue, whatever it
// moves: a quarter of a line's weight, as an SM's four schedulers issue four instructions in the
// cycle its L1 returns one 128-byte wavefront. What a request costs beyond its issue is in the lines
// it touches; nvcc's merged accesses pay their lines once between them (siteCost). How many
// requests a site makes under each layout comes from the PTX nvcc emitted for the original (Ptx.h)
// or, for the other layouts, from what their arrays allow. It was 1 (a sector's worth) until
// 2026-11-30: on the two latest rounds of docs/results/selection-h200.md, rescored offline,
// 0.125 picked within 3% of the fastest as often as 1 or more often (36 and 34 of 39, against 35
// and 34): at 1, mesh_deform's twelve scalar stores and loads of float3 arrays outweighed the
// sectors its SoA saves in a kernel that streams at 3 TB/s, and SoA ran 1.17x.
inline constexpr double kRequestWeight = kL1WavefrontWeight / 4;
// A clustered or SoA layout must predict at least this share less cost than the layout before it
// in the order AoS, aligned, clustered, SoA to be chosen over it: the model sees memory and the
// requests nvcc emits, not registers or DRAM pages. It was 10% before the requests came from the
// PTX (hpcg: 7% predicted gain, 3.6% measured loss on an H100, 0.4% gain on the H200 of
// docs/results/selection-h200.md); on that page's round 10% kept nbody's clusters (9% predicted,
// 12% measured) and 5% lost nowhere.
inline constexpr double kModelMinGain = 0.05;
// Model mode keeps a cluster of the field access tree only where the replay predicts it saves at
// least this share of the struct's cost against its fields in arrays of their own (AnalyzeModel.cpp).
// Below it the saving is within what trace sampling moves between runs of one program (kmeans'
// Centroid {sum, weightSum, count}: 0% to 0.2% over its recorded runs), while a cluster that
// matters saves more (nbody's {x, y, z, mass}: 0.8% to 4.1%; SoA ran 40% longer on an H100).
inline constexpr double kClusterMinGain = 0.005;
// A field counts as read at its thread's own index when at least this share of the warp-level
// executions of each of its sites touched elements base + lane (the rest: gathers, strides).
inline constexpr double kOwnIndexShare = 0.9;

// 32-byte sectors per layout. Paper mode: AoS as measured, the others estimated (Traffic.h).
// Model mode: every layout replayed from the trace (sectors the warp had not touched recently).
struct LayoutSectors {
  double aos = 0;
  double soa = 0;
  double clustered = 0;  // meaningful when the struct has clusters
  double aosoa = 0;      // model mode only (paper mode: the SoA estimate)
  // The record aligned to its size: AoS's sectors and lines, in fewer (wider) requests.
  double aligned = 0;
  void add(const LayoutSectors& o) {
    aos += o.aos, soa += o.soa, clustered += o.clustered, aosoa += o.aosoa, aligned += o.aligned;
  }
  // The value of a layout the plan can name (AoSoA is not one).
  double under(Layout layout) const {
    switch (layout) {
      case Layout::AoS: return aos;
      case Layout::SoA: return soa;
      case Layout::Clustered: return clustered;
      case Layout::Aligned: return aligned;
    }
    return aos;
  }
};

// Predicted sectors of one struct in one kernel (model mode).
struct KernelSectors {
  std::string kernel;  // as the trace names it; "(not traced)" for sites without records
  LayoutSectors sectors;
};

struct SiteEvidence {
  std::string source;  // the site map's source path
  SiteInfo site;
  SiteCounters counters;
  SiteVerdict verdict;
  unsigned blockPeriod = 1;
  LayoutSectors sectors;
  bool replayed = false;  // model mode: sectors come from the trace (else: estimates)
  ModelCounts model;      // model mode: replayed counts scaled to the site's executions
  // What nvcc emitted for the site, when the analysis was given the original's PTX.
  std::optional<SiteCode> code;
  // Model mode: requests per execution under each layout (AoS from the PTX where it has the site),
  // and the share of its executions that issue any (below 1 where nvcc hoisted the access out of
  // a loop and the trace shows the same elements in consecutive executions).
  LayoutSectors requests;
  double issued = 1;
};

struct StructDecision {
  std::string name;
  StructInfo info;                   // the struct as the site map describes it (fields, offsets, size)
  Layout layout = Layout::AoS;
  double score = 0;                  // sum of the site weights
  std::vector<SiteEvidence> sites;   // sorted by |weight|, largest first
  // Paper mode: when the rule kept AoS and some site executed. Model mode and forced layouts:
  // for every struct with executed sites (the clustered candidate).
  std::optional<Clustering> clustering;
  LayoutSectors sectors;             // summed over the sites
  // Model mode:
  LayoutSectors requested;           // sectors per execution, summed, without the warp's reuse
  LayoutSectors cost;                // sectors + kL1WavefrontWeight x requested lines + requests: decides
  std::vector<KernelSectors> kernels;
  double replayedShare = 0;          // share of the thread-level executions covered by the trace
  double measuredAoS = 0;            // the profile's sectors x block period, to compare with requested.aos
  // The layouts the rewriter could emit for this struct that the decision weighed, AoS first (empty
  // when no access executed, or the profile is out of date for it): the candidates to measure.
  std::vector<Layout> weighed;
  // Whether aligning the record to its size can merge its accesses (8 or 16 bytes, aligned to
  // less): model mode prices it and, where it costs less than AoS, weighs it as a layout of its
  // own (docs/analysis.md, "Aligned records").
  bool alignable = false;
  // Model mode, for a struct whose accesses index a flattened 2-D array (transposeWidth): the row
  // length W, and SoA's cost when stored transposed (element r * W + k at k * rows + r), priced on a
  // replay of its own; 0 where not priced. `transposed`: the decision is that SoA, stored transposed
  // (the plan's transpose), and the SoA numbers above are those of the untransposed arrays.
  unsigned transposeWidth = 0;
  double transposedCost = 0;
  bool transposed = false;
};

// Whether the field access tree offers a clustered candidate (more than one cluster).
inline bool hasClusters(const StructDecision& d) { return d.clustering && d.clustering->clusters.size() > 1; }

struct Analysis {
  AnalyzeMode mode = AnalyzeMode::Paper;
  bool forced = false;               // --layout overrode the decision
  std::string profileDevice;
  std::string traceFile;             // model mode: the trace replayed
  uint64_t traceRecords = 0;
  std::vector<StructDecision> structs;
  Plan plan;
  std::optional<HwComparison> hw;  // the profile has hardware metrics (relayout profile --hw)
  // Filled once the plan was applied (optimize): struct name -> what the rewrite did with it.
  std::map<std::string, RewriteOutcome> rewrite;
};

struct SiteMapFile {
  std::string path;
  SiteMap map;
};

struct AnalyzeOptions {
  AnalyzeMode mode = kDefaultAnalyzeMode;
  bool clusters = true;   // split an AoS struct into the field access tree's clusters
  // Model mode: take apart the tree's clusters that the replay does not predict to save
  // kClusterMinGain (AnalyzeModel.cpp); false decides as before that check (`--keep-tree-clusters`).
  bool checkClusters = true;
  LoopCounts loopCounts;  // measured loop Counts; others are derived from site counters
  // Forces this layout on every struct (`--layout`; clustered: the field access tree's clusters,
  // AoS where the tree has one). The plan's mode is then "forced".
  std::optional<Layout> forced;
  // Model mode: the trace to replay. Default: the profile's trace.file, in the profile's folder.
  std::string tracePath;
  // PTX of the original program, compiled with -lineinfo (Ptx.h): model mode reads from it which
  // accesses nvcc merged into vector instructions and which it hoisted out of loops.
  std::vector<const PtxModule*> ptx;
  // Structs the profile cannot decide (sources edited since it was recorded; core/ProfileMatch.h):
  // name -> why. They stay AoS with that reason, unless --layout forces a layout.
  std::map<std::string, std::string> refusedStructs;
};

// Refuses a profile that was not recorded from these sources (hash or site count differ), naming
// the files; model mode refuses a profile without a trace, and a trace that does not fit it.
llvm::Expected<Analysis> analyze(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                 llvm::StringRef profilePath, const AnalyzeOptions& options = {});
// analyze() in paper mode (whatever options.mode says).
llvm::Expected<Analysis> analyzePaper(const std::vector<SiteMapFile>& siteMaps, const Profile& profile,
                                      llvm::StringRef profilePath, const AnalyzeOptions& options = {});

// Human-readable reports of an analysis.
std::string renderTerminalReport(const Analysis& analysis, size_t sitesPerStruct = 5);
std::string renderMarkdownReport(const Analysis& analysis, size_t sitesPerStruct = 10);
// One self-contained page (inline CSS and SVG, no scripts): tree, clusters, sites, traffic chart.
std::string renderHtmlReport(const Analysis& analysis, size_t sitesPerStruct = 10);
// The same for machines: "relayout-report", version 1 (docs/analysis.md, "Reports"), with every
// site of every struct (the human-readable reports show the heaviest few).
nlohmann::json renderJsonReport(const Analysis& analysis);

}  // namespace relayout
