// relayout rewrite: apply a layout plan to the sources.
#include "build/CompileFlags.h"
#include "commands/Commands.h"
#include "commands/Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/SiteMap.h"
#include "relayout/rewriter/Rewriter.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
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
                              "Nothing is written unless the whole run succeeds, and then every file or none; "
                              "a file the run read is never overwritten, except with --in-place (which keeps "
                              "FILE.orig).");
static cl::list<std::string> files(cl::Positional, cl::desc("FILE.cu..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> planPath("plan", cl::desc("Plan written by `relayout analyze`"), cl::value_desc("PLAN.json"),
                                     cl::sub(command));
static cl::list<std::string> sites("sites",
                                   cl::desc("Without --plan: site maps whose structs --layout applies to. With "
                                            "--plan: the current site maps of sources edited since the plan "
                                            "was made, to check that the functions it decided on are unchanged"),
                                   cl::value_desc("S.sites.json"), cl::CommaSeparated, cl::sub(command));
static cl::opt<std::string> outDir("o",
                                   cl::desc("Output folder for sources that all lie in one folder: each file as "
                                            "DIR/NAME (files from several folders: use --out-root)"),
                                   cl::value_desc("DIR"), cl::sub(command));
static cl::opt<std::string> outRoot("out-root",
                                    cl::desc("Output tree (default: relayout-out/rewritten): every given source, "
                                             "and every header that changed, at its path relative to --in-root "
                                             "under DIR; headers that did not change are not copied"),
                                    cl::value_desc("DIR"), cl::sub(command));
static cl::opt<std::string> inRoot("in-root",
                                   cl::desc("With --out-root: the folder whose tree DIR mirrors (default: the "
                                            "deepest folder holding every file written)"),
                                   cl::value_desc("ROOT"), cl::sub(command));
static cl::opt<bool> diff("diff",
                          cl::desc("Print a unified diff instead of writing files, with paths relative to the "
                                   "working folder (git apply and patch -p1 take it from there)"),
                          cl::sub(command));
static cl::opt<bool> inPlace("in-place",
                            cl::desc("Rewrite the sources and the headers that change themselves (the target, "
                                     "for a symbolic link), keeping the original as FILE.orig; an existing "
                                     "FILE.orig is never replaced, so it keeps the first original"),
                            cl::sub(command));
static cl::opt<std::string> layout("layout",
                                   cl::desc("Force this layout on every struct in the plan (experiments); clustered "
                                            "takes each struct's clusters from the plan"),
                                   cl::value_desc("aos|soa|clustered|aligned"), cl::sub(command));
static cl::list<std::string> transpose(
    "transpose",
    cl::desc("Store the arrays of an SoA struct transposed, as a flattened 2-D array of rows of W elements (an "
             "ELL matrix indexed `row * W + k`): element row * W + k at k * rows + row, so that threads that "
             "each read one row read consecutive elements. STRUCT=W for one struct, W for every SoA struct"),
    cl::value_desc("[STRUCT=]W"), cl::CommaSeparated, cl::sub(command));
static cl::opt<std::string> buildDir("p", cl::desc("Build folder holding compile_commands.json"),
                                     cl::value_desc("BUILD"), cl::sub(command));

llvm::Error forceLayout(Plan& plan, const std::string& wanted) {
  llvm::Expected<Layout> forced = layoutNamed(wanted, "--layout");
  if (!forced) return forced.takeError();
  auto refuse = [&](const std::string& why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--layout " + wanted + " " + why);
  };
  plan.mode = "forced";
  for (StructPlan& s : plan.structs) {
    switch (*forced) {
      case Layout::AoS:
      case Layout::Aligned:
        s.clusters.clear();
        break;
      case Layout::SoA:
        if (s.fields.empty()) return refuse("needs the field list of struct " + s.name + " in the plan");
        s.clusters = soaClusters(s.fields);
        break;
      case Layout::Clustered:
        // The clusters are the analysis's (a clustered plan, or `relayout analyze --layout
        // clustered`); one field per cluster would be SoA, one cluster of all AoS, by other names.
        if (s.clusters.size() < 2 ||
            !std::any_of(s.clusters.begin(), s.clusters.end(), [](const Cluster& c) { return c.fields.size() > 1; }))
          return refuse("needs the clusters of struct " + s.name +
                        " in the plan (two or more, one with two fields or more), and it has none: write the plan "
                        "with `relayout analyze --layout clustered`");
        break;
    }
    s.layout = *forced;
    s.align = 0;  // aligned: to the record's size (the rewriter knows it); no other layout has one
    if (*forced != Layout::SoA) s.transpose = 0;  // a transposed layout is SoA
    s.reason = "forced by --layout " + wanted;
  }
  return llvm::Error::success();
}

// --transpose: each STRUCT=W (or W for every SoA struct) sets that struct's transposition; the
// struct must be SoA in the plan (or by --layout).
static llvm::Error applyTranspose(Plan& plan, const std::vector<std::string>& requests) {
  auto refuse = [](const std::string& why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--transpose " + why);
  };
  for (const std::string& request : requests) {
    llvm::StringRef name, width = request;
    if (size_t at = request.rfind('='); at != std::string::npos) {
      name = llvm::StringRef(request).take_front(at);
      width = llvm::StringRef(request).drop_front(at + 1);
    }
    unsigned w = 0;
    if (width.getAsInteger(10, w) || w < 2 || w > 65536)
      return refuse(request + ": W must be a whole number from 2 to 65536 (elements per row)");
    bool found = false, set = false;
    for (StructPlan& s : plan.structs) {
      if (!name.empty() && s.name != name) continue;
      found = true;
      if (s.layout != Layout::SoA) {
        if (name.empty()) continue;
        return refuse(request + ": struct " + s.name + " is " + toString(s.layout) +
                      " in the plan; a transposed layout is SoA (add --layout soa)");
      }
      s.transpose = w;
      set = true;
    }
    if (!found) return refuse(request + ": the plan has no struct " + name.str());
    if (!set)
      return refuse(request + ": the plan lays out no struct as soa; a transposed layout is SoA (add --layout soa)");
  }
  return llvm::Error::success();
}

// A plan that keeps every struct of the site maps as it is; --layout then sets the layout.
static llvm::Expected<Plan> planFromSiteMaps(const std::vector<std::string>& paths) {
  Plan plan;
  plan.mode = "forced";
  std::vector<SiteMap> maps;
  for (const std::string& path : paths) {
    auto map = SiteMap::load(path);
    if (!map) return map.takeError();
    maps.push_back(std::move(*map));
  }
  std::vector<const SiteMap*> given;
  for (const SiteMap& map : maps) given.push_back(&map);
  if (llvm::Error err = checkDistinctUnits(paths, given)) return err;
  for (const SiteMap* map = maps.data(); map != maps.data() + maps.size(); ++map) {
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
  std::vector<const SiteMap*> given;
  for (const SiteMap& map : currentMaps) given.push_back(&map);
  if (llvm::Error err = checkDistinctUnits(sites, given)) return err;
  for (const std::string& source : sources) {
    auto text = readFile(source);
    if (!text) return text.takeError();
    std::string hash = sha256Hex(*text);
    bool known = false;
    for (const PlanSource& s : plan.sources) known |= s.sha256 == hash;
    if (known) continue;
    auto current = std::find_if(currentMaps.begin(), currentMaps.end(),
                                [&](const SiteMap& m) { return m.sourceSha256 == hash; });
    // Without --plan, `path` is a site map: it is stale because the source changed since it was
    // instrumented, and only instrumenting again makes a site map that fits.
    if (current == currentMaps.end() && planPath.empty() && !sites.empty()) {
      for (size_t i = 0; i < plan.sources.size() && i < sites.size(); ++i)
        if (llvm::sys::path::filename(plan.sources[i].path) == llvm::sys::path::filename(source))
          return fileError(sites[i], fmt::format("describes {} as it was (sha256 {}), not as it is now (sha256 {}); "
                                                 "instrument it again",
                                                 source, plan.sources[i].sha256.substr(0, 12), hash.substr(0, 12)));
      return fileError(source, "no --sites map describes it; instrument it and give its site map with --sites");
    }
    if (current == currentMaps.end())
      return fileError(path, fmt::format("was not made for {} as it is now (sha256 {}); analyze its profile again{}",
                                         source, hash.substr(0, 12),
                                         currentMaps.empty() ? ", or give its current site map with --sites"
                                                             : " (no --sites map describes it as it is now)"));
    if (llvm::Error err = checkPlanFitsSiteMap(plan, path, *current)) return err;
    llvm::errs() << "relayout: " << path << " was made for another version of " << source
                 << "; the functions it decided on are unchanged\n";
  }
  return llvm::Error::success();
}

// Folder and OutRoot outputs: where each written file goes, in order.
static llvm::Expected<std::vector<std::string>> treeDestinations(const std::vector<const RewrittenFile*>& written,
                                                                 const RewriteDestination& destination) {
  std::vector<std::string> destinations;
  std::vector<std::string> paths;
  for (const RewrittenFile* file : written) paths.push_back(absolutePath(file->path));
  if (destination.mode == RewriteOutput::Folder) {
    for (const std::string& p : paths)
      if (llvm::sys::path::parent_path(p) != llvm::sys::path::parent_path(paths.front()))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            fmt::format("-o {} would put files from several folders ({} and {}) into one; use --out-root {} to "
                        "keep their tree",
                        destination.dir, pathFromWorkingFolder(paths.front()), pathFromWorkingFolder(p),
                        destination.dir));
    for (const std::string& p : paths)
      destinations.push_back(destination.dir + "/" + llvm::sys::path::filename(p).str());
  } else {
    std::string root = destination.inRoot.empty() ? commonFolder(paths) : absolutePath(destination.inRoot);
    for (const std::string& p : paths) {
      auto relative = pathInside(root, p);
      if (!relative) return fileError(p, "is not inside --in-root " + root + "; give a folder that holds every file");
      destinations.push_back(destination.dir + "/" + *relative);
    }
  }
  return destinations;
}

static llvm::Error stageInPlace(const std::vector<const RewrittenFile*>& changed, OutputSet& outputs) {
  for (const RewrittenFile* file : changed) {
    llvm::SmallString<256> target;  // a symbolic link stays; the file it names changes
    if (llvm::sys::fs::real_path(file->path, target)) return fileError(file->path, "cannot resolve its path");
    std::string backup = target.str().str() + ".orig";
    outputs.add(target.str().str(), file->rewritten);
    // FILE.orig is never replaced: it may be the user's, or an earlier run's first original. What
    // this run replaces is kept all the same, in the first free FILE.orig.N, unless FILE.orig
    // holds it already.
    if (llvm::sys::fs::exists(backup)) {
      auto kept = readFile(backup);
      if (!kept) return kept.takeError();
      if (*kept == file->original) continue;
      std::string next;
      for (unsigned n = 1; next.empty() || llvm::sys::fs::exists(next); ++n) next = backup + "." + std::to_string(n);
      reportNote(backup + ": kept as it is (an earlier --in-place run's first original, or a file of yours); "
                 "what this run replaces is kept as " + next);
      backup = next;
    }
    outputs.add(backup, file->original, target.str().str());
  }
  return llvm::Error::success();
}

llvm::Error rewriteAndStage(const Plan& plan, const std::string& path, const std::vector<std::string>& sources,
                            const std::string& buildDirectory, const std::vector<std::string>& flags,
                            const RewriteDestination& destination, OutputSet& outputs,
                            std::map<std::string, RewriteOutcome>* outcomes, bool announce) {
  if (llvm::Error err = checkSourcesExist(sources)) return err;
  if (llvm::Error err = checkPlanSources(plan, path, sources)) return err;
  auto db = makeCompilationDatabase(buildDirectory, flags);
  if (!db) return db.takeError();
  if (llvm::Error err = checkSourcesInDatabase(**db, buildDirectory, sources)) return err;
  // A plan made from --sites maps (no --plan) has no file to point into.
  auto result = rewriteSources(plan, sources, **db, planPath.empty() && !sites.empty() ? "" : path);
  if (!result) return result.takeError();
  if (announce)
    for (const std::string& line : result->diagnostics) llvm::errs() << line << "\n";
  // One line per planned struct, whatever happened to it: a layout that was not applied is never
  // silent, and a struct the plan keeps as it is says so too.
  if (announce)
    for (const StructPlan& sp : plan.structs)
      if (sp.layout == Layout::AoS)
        llvm::errs() << "relayout: " << sp.name << ": kept as it is (the plan says aos)\n";
  for (const StructOutcome& s : result->structs) {
    if (outcomes) (*outcomes)[s.name] = RewriteOutcome{s.rewritten, s.reasons};
    if (!announce) continue;
    std::string what = s.layout == Layout::Aligned ? "record aligned to " + std::to_string(s.align) + " bytes"
                                                   : std::string(toString(s.layout)) + " layout";
    if (const StructPlan* planned = plan.findStruct(s.name); planned && planned->transpose)
      what += ", transposed in rows of " + std::to_string(planned->transpose) + ",";
    if (s.rewritten) {
      llvm::errs() << "relayout: " << s.name << ": " << what << " applied\n";
    } else {
      llvm::errs() << "relayout: " << s.name << ": " << what << " not applied: "
                   << (s.reasons.empty() ? std::string("see the warnings above") : s.reasons.front());
      if (s.reasons.size() > 1) llvm::errs() << " (and " << s.reasons.size() - 1 << " more above)";
      llvm::errs() << "\n";
    }
  }
  // Every given source is written (so that an output tree builds), every header that changed, and
  // the unchanged headers that include one.
  std::vector<const RewrittenFile*> written, changed;
  for (const RewrittenFile& file : result->files) {
    bool given =
        std::any_of(sources.begin(), sources.end(), [&](const std::string& s) { return samePath(s, file.path); });
    if (given || file.rewritten != file.original || file.includesChanged) written.push_back(&file);
    if (file.rewritten != file.original) changed.push_back(&file);
    if (destination.mode != RewriteOutput::InPlace) outputs.protect(file.path);
  }
  switch (destination.mode) {
    case RewriteOutput::Folder:
    case RewriteOutput::OutRoot: {
      auto destinations = treeDestinations(written, destination);
      if (!destinations) return destinations.takeError();
      for (size_t i = 0; i < written.size(); ++i) outputs.add((*destinations)[i], written[i]->rewritten);
      return llvm::Error::success();
    }
    case RewriteOutput::InPlace:
      outputs.setJournalFolder(llvm::sys::path::parent_path(absolutePath(sources.front())).str());
      return stageInPlace(changed, outputs);
    case RewriteOutput::Diff: {
      std::string diffText;
      for (const RewrittenFile* file : changed) {
        auto d = unifiedDiff(pathFromWorkingFolder(file->path), file->original, file->rewritten);
        if (!d) return d.takeError();
        diffText += *d;
      }
      llvm::outs() << diffText;
      llvm::outs().flush();
      if (std::error_code ec = llvm::outs().error()) {
        llvm::outs().clear_error();  // else LLVM ends the process with "IO failure on output stream"
        return llvm::createStringError(ec, "cannot write the diff to standard output: " + ec.message());
      }
      return llvm::Error::success();
    }
  }
  return llvm::Error::success();
}

static int run(const std::vector<std::string>& trailing) {
  for (const cl::opt<std::string>* option : std::initializer_list<const cl::opt<std::string>*>{&outDir, &outRoot, &inRoot, &planPath})
    if (llvm::Error err = checkGivenOnce(*option)) return reportError(std::move(err));
  if (diff && inPlace) return reportError("--diff and --in-place exclude each other");
  int outputs = bool(diff) + bool(inPlace) + !outDir.empty() + !outRoot.empty();
  if (outputs > 1) return reportError("give one of -o, --out-root, --diff and --in-place");
  if (!inRoot.empty() && outRoot.empty()) return reportError("--in-root goes with --out-root");
  if (planPath.empty() && sites.empty())
    return reportError("give either --plan PLAN.json, or --sites S.sites.json with --layout");
  if (planPath.empty() && layout.empty()) return reportError("--sites needs --layout soa|aos");
  // A run killed while it wrote here is undone before the sources are read.
  // --in-place keeps its journal in the deepest folder above every file it changes (headers
  // included), so every folder above the sources is looked at.
  std::vector<std::string> folders;
  for (const std::string& file : files) {
    const std::string source = absolutePath(file);
    for (llvm::StringRef f = llvm::sys::path::parent_path(source); !f.empty() && f != "/";
         f = llvm::sys::path::parent_path(f))
      folders.push_back(f.str());
  }
  if (llvm::Error err = recoverInterruptedRuns(folders)) return reportError(std::move(err));
  auto plan = planPath.empty() ? planFromSiteMaps(sites) : Plan::load(planPath);
  if (!plan) return reportError(plan.takeError());
  if (!layout.empty())
    if (llvm::Error err = forceLayout(*plan, layout)) return reportError(std::move(err));
  if (llvm::Error err = applyTranspose(*plan, transpose)) return reportError(std::move(err));
  RewriteDestination destination;
  destination.mode = diff      ? RewriteOutput::Diff
                     : inPlace ? RewriteOutput::InPlace
                     : !outDir.empty() ? RewriteOutput::Folder
                                       : RewriteOutput::OutRoot;
  destination.dir = !outDir.empty()    ? outDir.getValue()
                    : !outRoot.empty() ? outRoot.getValue()
                                       : "relayout-out/rewritten";
  destination.inRoot = inRoot;
  OutputSet staged;
  for (const std::string& input : planPath.empty() ? std::vector<std::string>(sites.begin(), sites.end())
                                                   : std::vector<std::string>{planPath.getValue()})
    staged.protect(input);  // the plan or site maps read, even where an output of the same name goes
  std::string planName = planPath.empty() ? sites.front() : planPath.getValue();
  if (llvm::Error err = rewriteAndStage(*plan, planName, files, buildDir, trailing, destination, staged))
    return reportError(std::move(err));
  std::vector<std::string> inputs;  // --in-place is the one output allowed over them
  if (destination.mode != RewriteOutput::InPlace) inputs.assign(files.begin(), files.end());
  if (llvm::Error err = staged.commit(inputs)) return reportError(std::move(err));
  if (destination.mode == RewriteOutput::Folder || destination.mode == RewriteOutput::OutRoot)
    llvm::errs() << "relayout: wrote " << staged.files().size() << (staged.files().size() == 1 ? " file" : " files") << " to " << destination.dir << "\n";
  if (destination.mode == RewriteOutput::InPlace)
    llvm::errs() << "relayout: wrote " << staged.files().size()
                 << " files in place (the files that changed, and FILE.orig for those that had none)\n";
  return 0;
}

Subcommand rewriteSubcommand{command, run};

}  // namespace relayout
