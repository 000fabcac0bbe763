// relayout analyze: classify the profiled accesses, choose a layout per struct, write the plan.
#include "Commands.h"
#include "Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/ProfileMatch.h"

#include <llvm/ADT/StringExtras.h>

#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("analyze",
                              "Choose a layout per struct from site maps and a profile (the rule of Nakai & Ohno "
                              "2017: uncoalesced and same-address accesses favour AoS, coalesced ones SoA, "
                              "weighted by execution counts). Prints a report naming the deciding sites and "
                              "writes the plan that `relayout rewrite` applies.");
static cl::list<std::string> sites("sites", cl::desc("Site maps written by `relayout instrument`"),
                                   cl::value_desc("S.sites.json"), cl::OneOrMore, cl::CommaSeparated,
                                   cl::sub(command));
static cl::opt<std::string> profilePath("profile", cl::desc("Profile written by `relayout profile`"),
                                        cl::value_desc("P.json"), cl::Required, cl::sub(command));
static cl::opt<std::string> output("o", cl::desc("Plan to write (default: relayout-plan.json)"),
                                   cl::value_desc("PLAN.json"), cl::init("relayout-plan.json"), cl::sub(command));
static cl::opt<std::string> markdown("report-md", cl::desc("Also write the report as Markdown"),
                                     cl::value_desc("FILE.md"), cl::sub(command));
static cl::opt<std::string> html("report-html",
                                 cl::desc("Also write the report as one self-contained HTML page (field access "
                                          "tree, sites, chart of predicted traffic per layout)"),
                                 cl::value_desc("FILE.html"), cl::sub(command));
static cl::opt<std::string> jsonReport("report-json", cl::desc("Also write the report as JSON (relayout-report)"),
                                       cl::value_desc("FILE.json"), cl::sub(command));
static cl::opt<bool> noClusters("no-clusters",
                                cl::desc("Keep a struct the rule leaves as AoS whole, instead of splitting it into "
                                         "__align__(16) clusters by the field access tree"),
                                cl::sub(command));

static cl::opt<std::string> mode("mode",
                                 cl::desc("How to decide: `paper` (the weighted sum of Nakai & Ohno) or `model` "
                                          "(replay the profile's trace against AoS, SoA, AoSoA and the clustered "
                                          "layout and pick the one predicted to move the fewest sectors; needs "
                                          "`relayout instrument --trace`). Default: model when the profile has "
                                          "a trace (it chose better on the bundled samples, docs/results/"
                                          "selection-h100.md), paper otherwise"),
                                 cl::value_desc("paper|model"), cl::sub(command));
static cl::opt<std::string> forcedLayout("layout",
                                         cl::desc("Force this layout on every struct (the plan's mode is `forced`): "
                                                  "aos, soa, or clustered (the field access tree's clusters); the "
                                                  "report still shows the predictions"),
                                         cl::value_desc("aos|soa|clustered"), cl::sub(command));
static cl::opt<std::string> tracePath("trace",
                                      cl::desc("Model mode: the trace to replay (default: the profile's trace.file, "
                                               "in the profile's folder)"),
                                      cl::value_desc("NAME.trace"), cl::sub(command));

// modeGiven false: model mode when a trace is at hand, paper mode otherwise.
static llvm::Expected<Analysis> analyzeFiles(const std::vector<std::string>& siteMapPaths,
                                             const std::string& profileFile, AnalyzeOptions options, bool modeGiven) {
  std::vector<SiteMapFile> maps;
  for (const std::string& path : siteMapPaths) {
    auto map = SiteMap::load(path);
    if (!map) return map.takeError();
    maps.push_back({path, std::move(*map)});
  }
  std::vector<const SiteMap*> mapPointers;
  for (const SiteMapFile& m : maps) mapPointers.push_back(&m.map);
  if (llvm::Error err = checkDistinctUnits(siteMapPaths, mapPointers)) return err;
  // Counts for the whole run, re-indexed to the site maps where the sources were edited since.
  auto matched = loadProfileForAnalysis(profileFile, mapPointers);
  if (!matched) return matched.takeError();
  for (size_t i = 0; i < matched->units.size(); ++i)
    if (!matched->units[i].changedFunctions.empty())
      llvm::errs() << "relayout: profile: functions changed since the profile was recorded: "
                   << maps[i].map.sourcePath << ": " << llvm::join(matched->units[i].changedFunctions, ", ") << "\n";
  options.refusedStructs = matched->refusedStructs();
  const Profile* profile = &matched->profile;
  // The trace's site ids name the sites as recorded: only the paper rule reads edited sources.
  const bool traceFits = matched->sameSources();
  if (modeGiven && options.mode == AnalyzeMode::Model && !traceFits)
    return fileError(profileFile, "was recorded from other versions of the sources: its trace cannot be replayed "
                                  "against them (use --mode paper, or profile the current sources again)");
  if (!modeGiven) {
    const bool haveTrace = profile->trace || !options.tracePath.empty();
    options.mode = haveTrace && traceFits ? AnalyzeMode::Model : AnalyzeMode::Paper;
    llvm::errs() << "relayout: deciding in " << toString(options.mode) << " mode ("
                 << (options.mode == AnalyzeMode::Model ? "the profile has a trace"
                     : haveTrace ? "the profile's trace describes other versions of the sources"
                                 : "the profile has no trace")
                 << "; --mode chooses)\n";
  }
  auto analysis = analyze(maps, *profile, profileFile, options);
  if (analysis && profile->hw) analysis->hw = compareWithHardware(maps, *profile, *profile->hw);
  return analysis;
}

llvm::Expected<Analysis> analyzeFiles(const std::vector<std::string>& siteMapPaths, const std::string& profileFile) {
  return analyzeFiles(siteMapPaths, profileFile, AnalyzeOptions{}, /*modeGiven=*/false);
}

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("analyze takes no arguments after `--`");
  for (const cl::Option* option : std::initializer_list<const cl::Option*>{&output, &markdown, &html, &jsonReport})
    if (llvm::Error err = checkGivenOnce(*option)) return reportError(std::move(err));
  AnalyzeOptions options;
  options.clusters = !noClusters;
  options.tracePath = tracePath;
  if (mode == "model")
    options.mode = AnalyzeMode::Model;
  else if (mode == "paper")
    options.mode = AnalyzeMode::Paper;
  else if (!mode.empty())
    return reportError("--mode must be paper or model, not '" + mode + "'");
  if (forcedLayout == "aos")
    options.forced = Layout::AoS;
  else if (forcedLayout == "soa")
    options.forced = Layout::SoA;
  else if (forcedLayout == "clustered")
    options.forced = Layout::Clustered;
  else if (!forcedLayout.empty())
    return reportError("--layout must be aos, soa or clustered, not '" + forcedLayout + "'");
  auto analysis = analyzeFiles(sites, profilePath, options, !mode.empty() || !forcedLayout.empty());
  if (!analysis) return reportError(analysis.takeError());
  OutputSet outputs;
  outputs.add(output, analysis->plan.toJson().dump(1) + "\n");
  if (!markdown.empty()) outputs.add(markdown, renderMarkdownReport(*analysis));
  if (!html.empty()) outputs.add(html, renderHtmlReport(*analysis));
  if (!jsonReport.empty()) outputs.add(jsonReport, renderJsonReport(*analysis).dump(1) + "\n");
  if (llvm::Error err = outputs.commit(sites)) return reportError(std::move(err));
  llvm::outs() << renderTerminalReport(*analysis);
  llvm::errs() << "relayout: plan written to " << output << "\n";
  return 0;
}

Subcommand analyzeSubcommand{command, run};

}  // namespace relayout
