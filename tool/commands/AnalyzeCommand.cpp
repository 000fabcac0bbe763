// relayout analyze: classify the profiled accesses, choose a layout per struct, write the plan.
#include "commands/Commands.h"
#include "commands/Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"
#include "relayout/core/ProfileMatch.h"
#include "relayout/core/Trace.h"

#include <llvm/ADT/StringExtras.h>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <nlohmann/json.hpp>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("analyze",
                              "Choose a layout per struct from site maps and a profile (the rule of Nakai & Ohno "
                              "2017: uncoalesced and same-address accesses favour AoS, coalesced ones SoA, "
                              "weighted by execution counts). Prints a report naming the deciding sites and "
                              "writes the plan that `relayout rewrite` applies.\n"
                              "  relayout analyze --sites S.sites.json... --profile P.json [-o PLAN.json]\n"
                              "  relayout analyze DIR    the folder of `relayout nvcc --relayout-generate=DIR`: "
                              "its site maps and profiles (several runs or ranks are merged first), writing "
                              "DIR/plan.json, DIR/report.{md,html,json} and DIR/compile_commands.json (the "
                              "compiles the use mode rewrites with)");
static cl::opt<std::string> folder(cl::Positional, cl::desc("[DIR]"), cl::Optional, cl::sub(command));
static cl::list<std::string> sites("sites", cl::desc("Site maps written by `relayout instrument`"),
                                   cl::value_desc("S.sites.json"), cl::ZeroOrMore, cl::CommaSeparated,
                                   cl::sub(command));
static cl::opt<std::string> profilePath("profile", cl::desc("Profile written by `relayout profile`"),
                                        cl::value_desc("P.json"), cl::sub(command));
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
                                         "aligned clusters by the field access tree"),
                                cl::sub(command));

static cl::opt<bool> keepTreeClusters(
    "keep-tree-clusters",
    cl::desc("Model mode: decide as before clusters were checked: every cluster the field access tree gives is "
             "kept, also those the replay predicts to save less than 0.5% of the struct's cost against their "
             "fields in arrays of their own (by default taken apart; docs/analysis.md), and a tree of single "
             "fields is a clustered candidate beside SoA (for comparisons)"),
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
                                                  "aos, soa, clustered (the field access tree's clusters) or aligned "
                                                  "(8- and 16-byte records aligned to their size); the report still "
                                                  "shows the predictions"),
                                         cl::value_desc("aos|soa|clustered|aligned"), cl::sub(command));
static cl::opt<std::string> tracePath("trace",
                                      cl::desc("Model mode: the trace to replay (default: the profile's trace.file, "
                                               "in the profile's folder)"),
                                      cl::value_desc("NAME.trace"), cl::sub(command));

static cl::list<std::string> ptxFiles(
    "ptx",
    cl::desc("Model mode: PTX of the original sources, compiled with nvcc -ptx -lineinfo (`optimize` makes it): "
             "which accesses nvcc merged into vector instructions and which it hoisted out of loops (repeatable)"),
    cl::value_desc("FILE.ptx"), cl::sub(command));

// modeGiven false: model mode when a trace is at hand, paper mode otherwise. `ptx`: PTX files of
// the original sources (analysis/Ptx.h).
static llvm::Expected<Analysis> analyzeFiles(const std::vector<std::string>& siteMapPaths,
                                             const std::string& profileFile, AnalyzeOptions options, bool modeGiven,
                                             const std::vector<std::string>& ptx) {
  std::vector<PtxModule> modules;
  for (const std::string& path : ptx) {
    llvm::Expected<PtxModule> m = loadPtx(path);
    if (!m) return m.takeError();
    modules.push_back(std::move(*m));
  }
  for (const PtxModule& m : modules) options.ptx.push_back(&m);
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
      llvm::errs() << "relayout: profile: functions changed since the profile was recorded: " << maps[i].map.sourcePath
                   << ": " << llvm::join(matched->units[i].changedFunctions, ", ") << "\n";
  options.refusedStructs = matched->refusedStructs();
  const Profile* profile = &matched->profile;
  // A trace belongs to the run that recorded it, and the profile names it: a profile recorded
  // without one has none that --trace could give.
  if (!profile->trace && !options.tracePath.empty())
    return fileError(profileFile, "was recorded without a trace, so no trace belongs to it (--trace " +
                                      options.tracePath +
                                      "): drop --trace, or profile a program instrumented with "
                                      "`relayout instrument --trace`");
  // The trace's site ids name the sites as recorded: only the paper rule reads edited sources.
  const bool traceFits = matched->sameSources();
  if (modeGiven && options.mode == AnalyzeMode::Model && !traceFits)
    return fileError(profileFile,
                     "was recorded from other versions of the sources: its trace cannot be replayed "
                     "against them (use --mode paper, or profile the current sources again)");
  if (!modeGiven) {
    // A profile copied without its trace file is still a profile: the paper rule decides.
    const std::string traceFile = profile->trace ? findTrace(profileFile, profile->trace->file) : "";
    const bool traceMissing = profile->trace && options.tracePath.empty() && !traceExists(traceFile);
    const bool haveTrace = (profile->trace && !traceMissing) || !options.tracePath.empty();
    options.mode = haveTrace && traceFits ? AnalyzeMode::Model : AnalyzeMode::Paper;
    std::string why = options.mode == AnalyzeMode::Model
                          ? (options.tracePath.empty() ? "the profile has a trace" : "--trace gives one")
                      : haveTrace    ? "the profile's trace describes other versions of the sources"
                      : traceMissing ? "the profile's trace " + traceFile + " is not there"
                                     : "the profile has no trace";
    llvm::errs() << "relayout: deciding in " << toString(options.mode) << " mode (" << why << "; --mode chooses)\n";
  }
  auto analysis = analyze(maps, *profile, profileFile, options);
  if (analysis && profile->hw) analysis->hw = compareWithHardware(maps, *profile, *profile->hw);
  return analysis;
}

llvm::Expected<Analysis> analyzeFiles(const std::vector<std::string>& siteMapPaths, const std::string& profileFile,
                                      std::optional<Layout> forced, const std::vector<std::string>& ptx,
                                      std::optional<AnalyzeMode> mode) {
  AnalyzeOptions options;
  options.forced = forced;
  if (mode) options.mode = *mode;
  return analyzeFiles(siteMapPaths, profileFile, options, /*modeGiven=*/mode.has_value(), ptx);
}

llvm::Expected<std::optional<AnalyzeMode>> modeNamed(const std::string& name, const std::string& option) {
  if (name.empty()) return std::nullopt;
  if (name == "model") return AnalyzeMode::Model;
  if (name == "paper") return AnalyzeMode::Paper;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 option + " must be paper or model, not '" + name + "'");
}

llvm::Expected<Layout> layoutNamed(const std::string& name, const std::string& option) {
  if (std::optional<Layout> layout = parseLayoutName(name)) return *layout;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 option + " must be aos, soa, clustered or aligned, not '" + name + "'");
}

// What `relayout nvcc --relayout-generate=DIR` and the runs of its program left in DIR.
struct GenerateFolder {
  std::vector<std::string> siteMaps, profiles, compiles;
};

static llvm::Expected<GenerateFolder> readGenerateFolder(const std::string& dir) {
  GenerateFolder found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::StringRef rank = name;
    if (name.ends_with(".sites.json")) found.siteMaps.push_back(it->path());
    else if (name.ends_with(".compile.json")) found.compiles.push_back(it->path());
    else if (name.ends_with(".profile.json") ||
             (rank.consume_back(".json") && rank.rsplit(".rank").first.ends_with(".profile") &&
              llvm::all_of(rank.rsplit(".rank").second, llvm::isDigit) && !rank.rsplit(".rank").second.empty()))
      found.profiles.push_back(it->path());
  }
  if (ec) return fileError(dir, "cannot read the folder: " + ec.message());
  for (auto* list : {&found.siteMaps, &found.profiles, &found.compiles}) llvm::sort(*list);
  if (found.siteMaps.empty())
    return fileError(dir,
                     "no site maps (*.sites.json) here: build the program with `relayout nvcc "
                     "--relayout-generate=" +
                         dir + "` first");
  if (found.profiles.empty())
    return fileError(dir,
                     "no profile (*.profile.json) here: run the program built with `relayout nvcc "
                     "--relayout-generate=" +
                         dir + "` first");
  return found;
}

// One profile for the folder's runs: the only one, or all merged into DIR/merged-profile.json.
static llvm::Expected<std::string> folderProfile(const std::string& dir, const GenerateFolder& found) {
  if (found.profiles.size() == 1) return found.profiles.front();
  auto merged = mergeProfileFiles(found.profiles);
  if (!merged) return merged.takeError();
  const std::string path = dir + "/merged-profile.json";
  if (llvm::Error err = writeFileAtomically(path, merged->toJson().dump(1) + "\n")) return err;
  llvm::errs() << "relayout: merged the " << found.profiles.size() << " profiles in " << dir << " into " << path
               << "\n";
  return path;
}

// DIR/compile_commands.json from the compile each generate-mode unit recorded.
static llvm::Expected<std::string> folderCompileDatabase(const GenerateFolder& found) {
  nlohmann::json entries = nlohmann::json::array();
  for (const std::string& path : found.compiles) {
    auto entry = readJsonFile(path);
    if (!entry) return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  return entries.dump(1) + "\n";
}

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("analyze takes no arguments after `--`");
  for (const cl::opt<std::string>* option :
       std::initializer_list<const cl::opt<std::string>*>{&output, &markdown, &html, &jsonReport})
    if (llvm::Error err = checkGivenOnce(*option)) return reportError(std::move(err));
  std::vector<std::string> siteMaps(sites.begin(), sites.end());
  std::string profileFile = profilePath;
  std::string planFile = output, markdownFile = markdown, htmlFile = html, jsonFile = jsonReport;
  std::string compileDatabase;
  if (!folder.empty()) {
    if (!sites.empty() || !profilePath.empty()) return reportError("give a folder, or --sites and --profile, not both");
    auto found = readGenerateFolder(folder);
    if (!found) return reportError(found.takeError());
    siteMaps = found->siteMaps;
    auto profile = folderProfile(folder, *found);
    if (!profile) return reportError(profile.takeError());
    profileFile = *profile;
    auto database = folderCompileDatabase(*found);
    if (!database) return reportError(database.takeError());
    compileDatabase = *database;
    auto inFolder = [&](const cl::Option& option, std::string& file, const char* name) {
      if (!option.getNumOccurrences()) file = folder + "/" + name;
    };
    inFolder(output, planFile, "plan.json");
    inFolder(markdown, markdownFile, "report.md");
    inFolder(html, htmlFile, "report.html");
    inFolder(jsonReport, jsonFile, "report.json");
  } else if (sites.empty() || profilePath.empty()) {
    return reportError("give --sites and --profile, or the folder of a generate-mode build (relayout analyze DIR)");
  }
  AnalyzeOptions options;
  options.clusters = !noClusters;
  options.checkClusters = !keepTreeClusters;
  options.tracePath = tracePath;
  llvm::Expected<std::optional<AnalyzeMode>> given = modeNamed(mode, "--mode");
  if (!given) return reportError(given.takeError());
  if (*given) options.mode = **given;
  if (options.mode == AnalyzeMode::Paper && !mode.empty() && !tracePath.empty())
    return reportError("--trace is replayed in model mode only, and --mode paper is given: drop one of them");
  if (!forcedLayout.empty()) {
    llvm::Expected<Layout> layout = layoutNamed(forcedLayout, "--layout");
    if (!layout) return reportError(layout.takeError());
    options.forced = *layout;
  }
  auto analysis = analyzeFiles(siteMaps, profileFile, options, !mode.empty() || !forcedLayout.empty(),
                               std::vector<std::string>(ptxFiles.begin(), ptxFiles.end()));
  if (!analysis) return reportError(analysis.takeError());
  OutputSet outputs;
  outputs.add(planFile, analysis->plan.toJson().dump(1) + "\n");
  if (!markdownFile.empty()) outputs.add(markdownFile, renderMarkdownReport(*analysis));
  if (!htmlFile.empty()) outputs.add(htmlFile, renderHtmlReport(*analysis));
  if (!jsonFile.empty()) outputs.add(jsonFile, renderJsonReport(*analysis).dump(1) + "\n");
  if (!compileDatabase.empty()) outputs.add(folder + "/compile_commands.json", compileDatabase);
  // Nothing this command read may be written over: the site maps, the profile and its trace, the
  // PTX, and the sources the site maps describe.
  std::vector<std::string> inputs = siteMaps;
  inputs.push_back(profileFile);
  if (!analysis->traceFile.empty()) inputs.push_back(analysis->traceFile);
  inputs.insert(inputs.end(), ptxFiles.begin(), ptxFiles.end());
  for (const PlanSource& source : analysis->plan.sources) inputs.push_back(source.path);
  if (llvm::Error err = outputs.commit(inputs)) return reportError(std::move(err));
  llvm::outs() << renderTerminalReport(*analysis);
  llvm::errs() << "relayout: plan written to " << planFile << "\n";
  const bool changesLayouts =
      llvm::any_of(analysis->plan.structs, [](const StructPlan& s) { return s.layout != Layout::AoS; });
  if (!folder.empty() && changesLayouts)
    // The wrapper flow runs no program of its own: the plan is a prediction until the two builds
    // are timed against each other.
    llvm::errs() << "relayout: note: the plan is the model's prediction, not a measurement: build with "
                    "--relayout-use="
                 << planFile
                 << " beside the original build and keep it only if `relayout-verify --original ORIGINAL "
                    "--rewritten REWRITTEN --run 'ARGS'` finds it faster\n";
  return 0;
}

Subcommand analyzeSubcommand{command, run};

}  // namespace relayout
