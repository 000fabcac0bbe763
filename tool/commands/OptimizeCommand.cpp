// relayout optimize: instrument, build, profile, analyze and rewrite in one go.
#include "build/BuildPlan.h"
#include "commands/Commands.h"
#include "build/CompileFlags.h"
#include "verify/Gpu.h"
#include "commands/Pipeline.h"
#include "commands/SamplingFlags.h"
#include "verify/VerifyRun.h"
#include "build/Toolchain.h"
#include "verify/Selection.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("optimize",
                              "Instrument the sources, build and run the instrumented program once on the GPU, "
                              "choose a layout per struct and rewrite the sources, all under the output folder:\n"
                              "  DIR/instrumented/  instrumented sources, site maps and program\n"
                              "  DIR/profile.json   the profile;  DIR/plan.json, DIR/report.{md,html,json}  the decision\n"
                              "  DIR/rewritten/     the rewritten sources and headers, in the sources' tree\n"
                              "  DIR/verify/        with a GPU (--verify): the original and the rewritten program, "
                              "their runs and verify.json; a rewrite that does not do what the original does is "
                              "moved to DIR/rejected/ (exit status 3). Without a GPU, --verify builds the two "
                              "programs and prints the relayout-verify command that runs them on a GPU machine\n"
                              "Outputs appear only when a step succeeds; a failed run removes what it wrote.\n"
                              "Flags after `--` are nvcc's, used to parse and to build the instrumented program with "
                              "one nvcc command. With -p BUILD, each source is parsed and compiled with its own "
                              "entry in BUILD/compile_commands.json (its -I, -D, -std, -arch, -rdc...; objects in "
                              "DIR/instrumented/obj/), then linked with relayout's runtime and CUPTI.\n"
                              "Without a GPU, --recorded-profile names a profile recorded earlier on a GPU from "
                              "the same sources; relayout says when it uses one.");
static cl::list<std::string> files(cl::Positional, cl::desc("FILE.cu..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> outDir("o", cl::desc("Output folder (default: relayout-out)"), cl::value_desc("DIR"),
                                   cl::init("relayout-out"), cl::sub(command));
static cl::opt<std::string> runArgs("run",
                                    cl::desc("Arguments for the profiled run of the program (and for --verify's runs)"),
                                    cl::value_desc("'ARGS'"), cl::sub(command));
static cl::opt<std::string> recordedProfile("recorded-profile",
                                            cl::desc("Profile to use when this machine has no GPU"),
                                            cl::value_desc("P.json"), cl::sub(command));
static cl::opt<bool> force("force",
                           cl::desc("Use the output folder even when it holds another program's results (its "
                                    "rewritten/ and instrumented/ trees are removed first)"),
                           cl::sub(command));
static SamplingFlags sampling(command);
static VerifyFlags verifyFlags(command);
static cl::opt<bool> noTrace("no-trace",
                             cl::desc("Profile without the trace: the paper's rule decides instead of the traffic "
                                      "model (cheaper to profile; see docs/results/selection-h100.md)"),
                             cl::sub(command));
static cl::opt<std::string> analysisMode(
    "mode",
    cl::desc("How to decide, as `relayout analyze --mode`: paper (the weighted sum of Nakai & Ohno) or model (the "
             "trace replayed; needs a traced profile). Default: model when the profile has a trace, paper otherwise"),
    cl::value_desc("paper|model"), cl::sub(command));
static cl::opt<std::string> forcedLayout("layout",
                                         cl::desc("Put this layout on every struct instead of choosing one (aos, "
                                                  "soa, clustered: the field access tree's clusters, or aligned: 8- "
                                                  "and 16-byte records aligned to their size), to time the layouts "
                                                  "against each other; the report still shows what relayout would "
                                                  "choose"),
                                         cl::value_desc("aos|soa|clustered|aligned"), cl::sub(command));
static cl::opt<unsigned> candidateCount(
    "candidates",
    cl::desc("With a GPU (or --verify): build and time at most K rewrites against the original, the analysis's pick "
             "first, then the other layouts it weighed, cheapest predicted cost first; the fastest that prints what "
             "the original prints is applied when it runs faster beyond the runs' spread (default 3)"),
    cl::value_desc("K"), cl::init(3), cl::sub(command));
static cl::opt<bool> everyLayout("candidates-every-layout",
                                 cl::desc("Also time soa and clustered on every struct at once, beyond the K "
                                          "candidates (the selection benchmark)"),
                                 cl::sub(command));
static cl::opt<std::string> buildDir("p",
                                     cl::desc("Build folder holding compile_commands.json: each source is parsed "
                                              "and compiled with its own (nvcc) entry there"),
                                     cl::value_desc("BUILD"), cl::sub(command));

// relayout's copies (under `copyDir`: DIR/instrumented or DIR/rewritten) of the project's include
// folders (those of `flags` below the sources' root), so that the copied headers are found before
// the originals.
static std::vector<std::string> copiedIncludeRoots(const std::vector<std::string>& flags, const std::string& root,
                                                   const std::string& copyDir) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef flag = flags[i];
    std::string folder;
    if ((flag == "-I" || flag == "-iquote") && i + 1 < flags.size()) folder = flags[i + 1];
    else if (flag.starts_with("-I") && flag.size() > 2) folder = flag.substr(flag.starts_with("-I=") ? 3 : 2).str();
    llvm::SmallString<256> real;
    if (folder.empty() || llvm::sys::fs::real_path(folder, real)) continue;
    llvm::StringRef rest = real.str();
    if (rest.consume_front(root) && (rest.empty() || rest.starts_with("/")) &&
        std::find(out.begin(), out.end(), copyDir + rest.str()) == out.end())
      out.push_back(copyDir + rest.str());
  }
  return out;
}

static cl::opt<bool> buildOnly(
    "build-only",
    cl::desc("Stop after building the instrumented program DIR/instrumented/program (needs no GPU): run it with "
             "`relayout profile` where the GPU is, then use that profile with analyze or --recorded-profile"),
    cl::sub(command));

// How the instrumented program is built: with -p, each source by its own compile database entry,
// then one link; otherwise one nvcc command with the flags after `--`.
static llvm::Expected<BuildRequest> describeBuild(const std::vector<std::string>& trailing,
                                                  const std::string& instrumentedDir) {
  BuildRequest request;
  request.program = instrumentedDir + "/program";
  std::vector<DatabaseCompile> compiles;
  if (!buildDir.empty()) {
    auto read = readDatabaseCompiles(buildDir, files);
    if (!read) return read.takeError();
    compiles = std::move(*read);
    request.compileSeparately = true;
    request.objectDir = instrumentedDir + "/obj";
  }
  for (size_t i = 0; i < files.size(); ++i) {
    UnitToBuild unit;
    unit.originalSource = files[i];
    unit.instrumentedSource = instrumentedDir + "/" + llvm::sys::path::filename(files[i]).str();
    unit.flags = buildDir.empty() ? trailing : compiles[i].flags;
    request.units.push_back(std::move(unit));
  }
  // The instrumented sources' places and include roots are known once instrument has run (run()).
  return request;
}

// --run's arguments, split as a shell would.
static std::vector<std::string> runArguments() {
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char*, 16> tokens;
  llvm::cl::TokenizeGNUCommandLine(runArgs, saver, tokens);
  return std::vector<std::string>(tokens.begin(), tokens.end());
}

static llvm::Expected<std::string> profileOnGpu(const std::string& program) {
  std::vector<std::string> commandLine = {program};
  for (const std::string& arg : runArguments()) commandLine.push_back(arg);
  std::string profilePath = outDir + "/profile.json";
  llvm::errs() << "relayout: profiling: " << llvm::join(commandLine, " ") << "\n";
  if (llvm::Error err = runProfiled(commandLine, profilePath)) return err;
  return profilePath;
}

static llvm::Expected<std::string> useRecordedProfile(const GpuAvailability& gpu) {
  auto profile = Profile::load(recordedProfile);
  if (!profile) return profile.takeError();
  llvm::errs() << fmt::format("relayout: no GPU here ({}): using the profile recorded on {} at {} from {}\n",
                              gpu.why, profile->device, profile->created, recordedProfile.getValue());
  return recordedProfile.getValue();
}

// The original sources compiled to PTX with -lineinfo (DIR/ptx/NAME.ptx), so that the model reads
// what nvcc emits: vector accesses and accesses hoisted out of loops (analysis/Ptx.h). Needs nvcc,
// not a GPU. A unit that does not compile so is left out with a warning; the model then predicts
// its accesses from the struct's layout alone.
static std::vector<std::string> compilePtx(BuildRequest build, const std::vector<std::string>& trailing) {
  if (build.units.empty()) {  // not described for a build: the flags after `--`, or the database
    auto described = describeBuild(trailing, outDir + "/instrumented");
    if (!described) {
      llvm::consumeError(described.takeError());
      return {};
    }
    build = std::move(*described);
  }
  build.copiedIncludeRoots.clear();
  std::vector<std::string> out;
  for (const NvccCommand& command : planPtx(build, RELAYOUT_NVCC, outDir + "/ptx")) {
    if (llvm::Error err = runBuild({command}, command.what)) {
      reportWarning(llvm::toString(std::move(err)) + "; the model predicts its accesses without it");
      continue;
    }
    // nvcc compiles a .cpp unit as host C++ and writes no PTX: it has no device accesses to read.
    if (llvm::sys::fs::exists(command.output)) out.push_back(command.output);
  }
  return out;
}

// The candidates to measure, each rewritten into DIR/candidates/NAME/ (the pick's sources are those of
// DIR/rewritten) with its plan beside; a candidate whose rewrite applied nothing, or the same as an
// earlier one, is dropped with a note.
static llvm::Error stageCandidates(const Analysis& analysis, const std::vector<std::string>& trailing,
                                   const std::string& root, OutputSet& outputs,
                                   std::vector<StagedCandidate>& staged) {
  CandidateOptions options;
  options.count = std::max(1u, candidateCount.getValue());
  options.everyUniformLayout = everyLayout;
  const std::string rewrittenDir = outDir + "/rewritten";
  for (const CandidatePlan& c : rankCandidates(analysis, options)) {
    OutputSet mine;  // this candidate's sources, kept only when it is measured
    StagedCandidate s{c.name, c.pick, {}, {}, c.predictedCost, c.originalCost,
                      candidatesFolder(outDir) + "/" + c.name, candidatesFolder(outDir) + "/" + c.name + "/plan.json"};
    std::map<std::string, RewriteOutcome> outcomes;
    if (c.pick) {
      outcomes = analysis.rewrite;
      std::vector<StagedOutput> copies;
      for (const StagedOutput& file : outputs.files())
        if (std::optional<std::string> relative = pathInside(absolutePath(rewrittenDir), file.path))
          copies.push_back({s.tree + "/" + *relative, file.contents});
      for (StagedOutput& copy : copies) outputs.add(std::move(copy.path), std::move(copy.contents));
    } else {
      RewriteDestination tree{RewriteOutput::OutRoot, s.tree, root};
      if (llvm::Error err = rewriteAndStage(c.plan, s.plan, files, buildDir, trailing, tree, mine, &outcomes,
                                            /*announce=*/false))
        return err;
    }
    for (const auto& [name, layout] : c.layouts) {
      auto it = outcomes.find(name);
      if (it != outcomes.end() && it->second.applied) {
        s.layouts[name] = layout;
        if (auto t = c.transposed.find(name); t != c.transposed.end()) s.transposed[name] = t->second;
      } else {
        s.notApplied[name] =
            it == outcomes.end() || it->second.reasons.empty() ? "not applied" : it->second.reasons.front();
      }
    }
    const std::string words = describeLayouts(CandidatePlan{c.name, {}, s.layouts, 0, 0, c.pick, s.transposed});
    auto same = std::find_if(staged.begin(), staged.end(), [&](const StagedCandidate& o) {
      return o.layouts == s.layouts && o.transposed == s.transposed;
    });
    if (s.layouts.empty() || same != staged.end()) {
      llvm::errs() << "relayout: candidate " << c.name << " (" << describeLayouts(c) << "): not measured: "
                   << (s.layouts.empty() ? "the rewrite applied none of its layouts"
                                         : "the rewrite applied the same layouts as candidate " + same->name)
                   << "\n";
      continue;
    }
    for (const StagedOutput& file : mine.files()) outputs.add(file.path, file.contents);
    outputs.add(s.plan, c.plan.toJson().dump(1) + "\n");
    llvm::errs() << "relayout: candidate " << c.name << (c.pick ? " (the analysis's pick)" : "") << ": " << words
                 << fmt::format(", predicted cost {:.2f} of the original's", c.originalCost > 0 ? c.predictedCost / c.originalCost : 1.0)
                 << "\n";
    staged.push_back(std::move(s));
  }
  outputs.add(candidatesFolder(outDir) + "/candidates.json", candidatesJson(staged, outDir).dump(1) + "\n");
  return llvm::Error::success();
}

// What follows the profile: decide, report and rewrite; with `withCandidates`, the candidates to
// measure too (stageCandidates).
// The rewritten tree has the instrumented tree's shape: paths from the same root.
static llvm::Error analyzeAndRewrite(const std::vector<std::string>& siteMaps, const std::string& profilePath,
                                     const std::vector<std::string>& trailing, const std::string& root,
                                     bool withCandidates, std::vector<StagedCandidate>& candidates,
                                     const std::vector<std::string>& ptx) {
  std::optional<Layout> forced;
  if (!forcedLayout.empty()) forced = *layoutNamed(forcedLayout, "--layout");  // checked before anything ran
  auto analysis = analyzeFiles(siteMaps, profilePath, forced, ptx, *modeNamed(analysisMode, "--mode"));
  if (!analysis) return analysis.takeError();
  llvm::outs() << renderTerminalReport(*analysis);

  OutputSet outputs;
  const std::string planPath = outDir + "/plan.json";
  outputs.add(planPath, analysis->plan.toJson().dump(1) + "\n");
  RewriteDestination rewritten{RewriteOutput::OutRoot, outDir + "/rewritten", root};
  if (llvm::Error err = rewriteAndStage(analysis->plan, planPath, files, buildDir, trailing, rewritten, outputs,
                                        &analysis->rewrite))
    return err;
  if (withCandidates)
    if (llvm::Error err = stageCandidates(*analysis, trailing, root, outputs, candidates)) return err;
  // The reports say, per struct, whether its layout was applied.
  outputs.add(outDir + "/report.md", renderMarkdownReport(*analysis));
  outputs.add(outDir + "/report.html", renderHtmlReport(*analysis));
  outputs.add(outDir + "/report.json", renderJsonReport(*analysis).dump(1) + "\n");
  // An earlier run's candidates and selection describe other rewrites.
  for (const std::string& old : {candidatesFolder(outDir), outDir + "/selection.json", outDir + "/selection.md"})
    llvm::sys::fs::remove_directories(old), llvm::sys::fs::remove(old);
  return outputs.commit(files);
}

// optimize --verify's builds: the user's program from the original sources and from each candidate's
// (DIR/candidates/NAME/, its copies of the include folders searched first), with the instrumented
// build's units and flags.
static VerifyRequest describeVerification(const BuildRequest& build, const InstrumentResult& units,
                                          const std::vector<StagedCandidate>& candidates) {
  VerifyRequest request{build, {}, RELAYOUT_NVCC, runArguments(), outDir};
  request.original.copiedIncludeRoots.clear();
  for (size_t i = 0; i < build.units.size() && i < units.units.size(); ++i)
    request.original.units[i].instrumentedSource = build.units[i].originalSource;
  for (const StagedCandidate& c : candidates) {
    BuildRequest rewritten = build;
    std::vector<std::string>& roots = rewritten.copiedIncludeRoots;
    roots.clear();
    for (size_t i = 0; i < build.units.size() && i < units.units.size(); ++i) {
      rewritten.units[i].instrumentedSource = c.tree + "/" + units.units[i].relativePath;
      // Only the folders of headers that changed are there.
      for (const std::string& root : copiedIncludeRoots(build.units[i].flags, units.root, c.tree))
        if (llvm::sys::fs::is_directory(root) && std::find(roots.begin(), roots.end(), root) == roots.end())
          roots.push_back(root);
    }
    request.candidates.emplace_back(c.name, std::move(rewritten));
  }
  return request;
}

// A folder that holds another program's results is not mixed with this one's: its plan names
// other sources. With --force, that program's rewritten and instrumented trees go first.
static llvm::Error checkOutputFolder() {
  const std::string planPath = outDir + "/plan.json";
  if (!llvm::sys::fs::exists(planPath)) return llvm::Error::success();
  std::set<std::string> given, planned;
  for (const std::string& file : files) given.insert(llvm::sys::path::filename(file).str());
  llvm::Expected<Plan> plan = Plan::load(planPath);
  if (plan)
    for (const PlanSource& source : plan->sources) planned.insert(llvm::sys::path::filename(source.path).str());
  else
    llvm::consumeError(plan.takeError());
  if (plan && planned == given) return llvm::Error::success();  // this program's earlier run
  if (!force) {
    const std::string named = plan ? "other sources: " + llvm::join(planned, ", ") : "no sources relayout can read";
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s holds the results of another run (its plan.json names %s): give another -o, or --force to replace them",
        outDir.getValue().c_str(), named.c_str());
  }
  for (const char* tree : {"/rewritten", "/instrumented"})
    if (std::error_code ec = llvm::sys::fs::remove_directories(outDir + tree))
      return llvm::createStringError(ec, "cannot remove %s%s: %s", outDir.getValue().c_str(), tree,
                                     ec.message().c_str());
  return llvm::Error::success();
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(outDir)) return reportError(std::move(err));
  if (llvm::Error err = verifyFlags.check(buildOnly)) return reportError(std::move(err));
  if (llvm::Expected<std::optional<AnalyzeMode>> given = modeNamed(analysisMode, "--mode"); !given)
    return reportError(given.takeError());
  if (!forcedLayout.empty())
    if (llvm::Expected<Layout> layout = layoutNamed(forcedLayout, "--layout"); !layout)
      return reportError(layout.takeError());
  if (buildOnly && (recordedProfile.getNumOccurrences() || runArgs.getNumOccurrences()))
    return reportError("--build-only stops before the profiled run: --run and --recorded-profile have no use with it");
  if (llvm::Error err = checkSourcesExist(files)) return reportError(std::move(err));
  if (llvm::Error err = checkOutputFolder()) return reportError(std::move(err));
  const GpuAvailability gpu = detectGpu();
  if (!gpu.available && !buildOnly && recordedProfile.empty())
    return reportError("cannot profile: " + gpu.why + "; give --recorded-profile P.json to use a profile recorded "
                       "on a GPU from the same sources, or --build-only to stop after building the instrumented "
                       "program");
  const std::string instrumentedDir = outDir + "/instrumented";
  const bool building = buildOnly || gpu.available;
  // Without a GPU, --verify still builds the original and the rewritten program (nvcc only), for
  // relayout-verify to run them on a machine with one.
  const bool describing = building || (verifyFlags.requested() && !verifyFlags.skipped());
  BuildRequest build;
  if (describing) {  // the database is read first, so that an entry it lacks stops us before any output
    auto described = describeBuild(trailing, instrumentedDir);
    if (!described) return reportError(described.takeError());
    build = std::move(*described);
  }
  OutputSet instrumented;
  InstrumentResult units;
  InstrumentOptions options;
  if (llvm::Error err = sampling.apply(options)) return reportError(std::move(err));
  // The trace lets the model mode decide (it records only what the sampling classifies: the first
  // launch of each kernel, by default).
  options.traceCapacity = noTrace ? 0 : InstrumentOptions::kDefaultTraceCapacity;
  options.traceLaunches = 2;
  auto siteMaps = stageInstrumented(files, buildDir, trailing, options, instrumentedDir, instrumented, &units);
  if (!siteMaps) return reportError(siteMaps.takeError());
  // What the profiling step builds and records beside the outputs (removed again on failure).
  std::vector<std::string> byProfiling;
  for (const std::string& file :
       {instrumentedDir + "/program", outDir + "/profile.json", outDir + "/profile.trace", outDir + "/ptx"})
    if (!llvm::sys::fs::exists(file)) byProfiling.push_back(file);
  if (llvm::Error err = instrumented.commit(files)) return reportError(std::move(err));

  // Each unit's instrumented copy sits at its path in the instrumented tree, beside the
  // instrumented headers, whose folders are searched before the originals.
  for (size_t i = 0; i < build.units.size() && i < units.units.size(); ++i) {
    build.units[i].instrumentedSource = instrumentedDir + "/" + units.units[i].relativePath;
    for (const std::string& root : copiedIncludeRoots(build.units[i].flags, units.root, instrumentedDir))
      if (std::find(build.copiedIncludeRoots.begin(), build.copiedIncludeRoots.end(), root) ==
          build.copiedIncludeRoots.end())
        build.copiedIncludeRoots.push_back(root);
  }
  // The candidates are rewritten and built where they will be measured: with a GPU, or for
  // relayout-verify elsewhere (--verify).
  const bool measuring = !verifyFlags.skipped() && (gpu.available || verifyFlags.requested());
  std::vector<StagedCandidate> candidates;
  auto rest = [&]() -> llvm::Error {
    if (building)
      if (llvm::Error err = runBuild(planBuild(build, relayoutToolchain()))) return err;
    if (buildOnly) return llvm::Error::success();
    auto profilePath = gpu.available ? profileOnGpu(build.program) : useRecordedProfile(gpu);
    if (!profilePath) return profilePath.takeError();
    const std::vector<std::string> ptx = compilePtx(build, trailing);
    return analyzeAndRewrite(*siteMaps, *profilePath, trailing, units.root, measuring, candidates, ptx);
  };
  if (llvm::Error err = rest()) {
    // A failed run leaves nothing of its own behind.
    for (const std::string& file : byProfiling) llvm::sys::fs::remove_directories(file), llvm::sys::fs::remove(file);
    instrumented.removeCommitted();
    return reportError(std::move(err));
  }
  if (buildOnly) {
    llvm::errs() << "relayout: built " << build.program << "; profile it on a GPU with `relayout profile -o "
                 << "PROFILE.json -- " << build.program << " ARGS`\n";
    return 0;
  }
  llvm::errs() << "relayout: plan, report and rewritten sources are in " << outDir << "\n";
  if (verifyFlags.skipped()) return 0;
  if (!gpu.available && !verifyFlags.requested()) {
    reportNote("not verified (" + gpu.why +
               "): with a GPU, optimize builds and runs the original and the rewritten program and compares them "
               "(--verify; without a GPU, --verify builds them for relayout-verify to run on a machine with one)");
    return 0;
  }
  return verifyRewrite(describeVerification(build, units, candidates), verifyFlags, gpu.available, gpu.why);
}

Subcommand optimizeSubcommand{command, run};

}  // namespace relayout
