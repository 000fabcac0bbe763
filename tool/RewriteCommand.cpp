// relayout rewrite: apply a layout plan to the sources.
#include "CompileFlags.h"
#include "Commands.h"
#include "Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/SiteMap.h"
#include "relayout/rewriter/Rewriter.h"

#include <fmt/format.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <set>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("rewrite",
                              "Rewrite CUDA sources to the layouts a plan chose: struct definitions, device "
                              "allocations, copies, kernel parameters and accesses. A struct with a use that "
                              "cannot be rewritten safely is reported with its location and left unchanged.\n"
                              "Nothing is written unless the whole run succeeds; the sources themselves change "
                              "only with --in-place (which keeps FILE.orig).");
static cl::list<std::string> files(cl::Positional, cl::desc("FILE.cu..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> planPath("plan", cl::desc("Plan written by `relayout analyze`"), cl::value_desc("PLAN.json"),
                                     cl::sub(command));
static cl::list<std::string> sites("sites",
                                   cl::desc("Without --plan: site maps whose structs --layout applies to. With "
                                            "--plan: the current site maps of sources edited since the plan "
                                            "was made, to check that the functions it decided on are unchanged"),
                                   cl::value_desc("S.sites.json"), cl::CommaSeparated, cl::sub(command));
static cl::opt<std::string> outDir("o", cl::desc("Output folder (default: relayout-out/rewritten)"),
                                   cl::value_desc("DIR"), cl::init("relayout-out/rewritten"), cl::sub(command));
static cl::opt<bool> diff("diff", cl::desc("Print a unified diff instead of writing files"), cl::sub(command));
static cl::opt<bool> inPlace("in-place", cl::desc("Rewrite the sources themselves, keeping FILE.orig backups"),
                             cl::sub(command));
static cl::opt<std::string> layout("layout", cl::desc("Force this layout on every struct in the plan (experiments)"),
                                   cl::value_desc("soa|aos"), cl::sub(command));
static cl::opt<std::string> buildDir("p", cl::desc("Build folder holding compile_commands.json"),
                                     cl::value_desc("BUILD"), cl::sub(command));

llvm::Error forceLayout(Plan& plan, const std::string& wanted) {
  if (wanted != "soa" && wanted != "aos")
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--layout must be soa or aos, not '" + wanted + "'");
  plan.mode = "forced";
  for (StructPlan& s : plan.structs) {
    if (wanted == "aos") {
      s.layout = Layout::AoS;
      s.clusters.clear();
    } else {
      if (s.fields.empty())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "--layout soa needs the field list of struct " + s.name + " in the plan");
      s.layout = Layout::SoA;
      s.clusters = soaClusters(s.fields);
    }
    s.reason = "forced by --layout " + wanted;
  }
  return llvm::Error::success();
}

// A plan that keeps every struct of the site maps as it is; --layout then sets the layout.
static llvm::Expected<Plan> planFromSiteMaps(const std::vector<std::string>& paths) {
  Plan plan;
  plan.mode = "forced";
  for (const std::string& path : paths) {
    auto map = SiteMap::load(path);
    if (!map) return map.takeError();
    plan.sources.push_back({map->sourcePath, map->sourceSha256});
    for (const StructInfo& s : map->structs) {
      if (plan.findStruct(s.name)) continue;
      StructPlan sp;
      sp.name = s.name;
      for (const FieldInfo& f : s.fields) sp.fields.push_back(f.name);
      plan.structs.push_back(std::move(sp));
    }
  }
  return plan;
}

// The plan must have been made for these sources: a stale plan could name fields or rely on
// accesses that changed. A source edited since is accepted when --sites gives its current site
// map and the functions the plan decided on still hash the same (checkPlanFitsSiteMap).
static llvm::Error checkPlanSources(const Plan& plan, const std::string& path, const std::vector<std::string>& sources) {
  std::vector<SiteMap> currentMaps;
  if (!planPath.empty())
    for (const std::string& sitesPath : sites) {
      auto map = SiteMap::load(sitesPath);
      if (!map) return map.takeError();
      currentMaps.push_back(std::move(*map));
    }
  for (const std::string& source : sources) {
    auto text = readFile(source);
    if (!text) return text.takeError();
    std::string hash = sha256Hex(*text);
    bool known = false;
    for (const PlanSource& s : plan.sources) known |= s.sha256 == hash;
    if (known) continue;
    auto current = std::find_if(currentMaps.begin(), currentMaps.end(),
                                [&](const SiteMap& m) { return m.sourceSha256 == hash; });
    if (current == currentMaps.end())
      return fileError(path, fmt::format("was not made for {} as it is now (sha256 {}); analyze its profile again{}",
                                         source, hash.substr(0, 12),
                                         planPath.empty()      ? ""
                                         : currentMaps.empty() ? ", or give its current site map with --sites"
                                                               : " (no --sites map describes it as it is now)"));
    if (llvm::Error err = checkPlanFitsSiteMap(plan, path, *current)) return err;
    llvm::errs() << "relayout: " << path << " was made for another version of " << source
                 << "; the functions it decided on are unchanged\n";
  }
  return llvm::Error::success();
}

llvm::Error rewriteAndStage(const Plan& plan, const std::string& path, const std::vector<std::string>& sources,
                            const std::string& buildDirectory, const std::vector<std::string>& flags,
                            RewriteOutput mode, const std::string& dir, OutputSet& outputs) {
  if (llvm::Error err = checkSourcesExist(sources)) return err;
  if (llvm::Error err = checkPlanSources(plan, path, sources)) return err;
  auto db = makeCompilationDatabase(buildDirectory, flags);
  if (!db) return db.takeError();
  auto result = rewriteSources(plan, sources, **db);
  if (!result) return result.takeError();
  for (const std::string& line : result->diagnostics) llvm::errs() << line << "\n";
  std::string diffText;
  std::set<std::string> names;
  for (const RewrittenFile& file : result->files) {
    bool given = std::any_of(sources.begin(), sources.end(), [&](const std::string& s) { return samePath(s, file.path); });
    switch (mode) {
      case RewriteOutput::Directory:
        if (!names.insert(llvm::sys::path::filename(file.path).str()).second)
          return fileError(file.path, "another rewritten file has the same name; rewrite them into separate folders");
        outputs.add(dir + "/" + llvm::sys::path::filename(file.path).str(), file.rewritten);
        break;
      case RewriteOutput::InPlace:
        if (file.rewritten == file.original) break;
        // --in-place changes only the files named on the command line.
        if (!given)
          return fileError(file.path, "would change too, but it was not given on the command line: name it "
                                      "as well, or write to a folder with -o");
        outputs.add(file.path + ".orig", file.original);
        outputs.add(file.path, file.rewritten);
        break;
      case RewriteOutput::Diff: {
        auto d = unifiedDiff(file.path, file.original, file.rewritten);
        if (!d) return d.takeError();
        diffText += *d;
        break;
      }
    }
  }
  if (mode == RewriteOutput::Diff) llvm::outs() << diffText;
  return llvm::Error::success();
}

static int run(const std::vector<std::string>& trailing) {
  if (diff && inPlace) return reportError("--diff and --in-place exclude each other");
  if (outDir.getNumOccurrences() && (diff || inPlace)) return reportError("-o cannot be combined with --diff or --in-place");
  if (planPath.empty() && sites.empty())
    return reportError("give either --plan PLAN.json, or --sites S.sites.json with --layout");
  if (planPath.empty() && layout.empty()) return reportError("--sites needs --layout soa|aos");
  auto plan = planPath.empty() ? planFromSiteMaps(sites) : Plan::load(planPath);
  if (!plan) return reportError(plan.takeError());
  if (!layout.empty())
    if (llvm::Error err = forceLayout(*plan, layout)) return reportError(std::move(err));
  RewriteOutput mode = diff ? RewriteOutput::Diff : inPlace ? RewriteOutput::InPlace : RewriteOutput::Directory;
  OutputSet outputs;
  std::string planName = planPath.empty() ? sites.front() : planPath.getValue();
  if (llvm::Error err = rewriteAndStage(*plan, planName, files, buildDir, trailing, mode, outDir, outputs))
    return reportError(std::move(err));
  std::vector<std::string> protect;
  if (mode != RewriteOutput::InPlace) protect.assign(files.begin(), files.end());
  if (llvm::Error err = outputs.commit(protect)) return reportError(std::move(err));
  if (mode == RewriteOutput::Directory) llvm::errs() << "relayout: wrote " << outputs.files().size() << " files to " << outDir << "\n";
  if (mode == RewriteOutput::InPlace) llvm::errs() << "relayout: rewrote " << outputs.files().size() / 2 << " sources in place (backups: .orig)\n";
  return 0;
}

Subcommand rewriteSubcommand{command, run};

}  // namespace relayout
