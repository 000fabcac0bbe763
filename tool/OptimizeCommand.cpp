// relayout optimize: instrument, build, profile, analyze and rewrite in one go.
#include "BuildPlan.h"
#include "Commands.h"
#include "CompileFlags.h"
#include "Gpu.h"
#include "Pipeline.h"
#include "SamplingFlags.h"
#include "VerifyRun.h"
#include "Toolchain.h"

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
static SamplingFlags sampling(command);
static VerifyFlags verifyFlags(command);
static cl::opt<bool> noTrace("no-trace",
                             cl::desc("Profile without the trace: the paper's rule decides instead of the traffic "
                                      "model (cheaper to profile; see docs/results/selection-h100.md)"),
                             cl::sub(command));
static cl::opt<std::string> forcedLayout("layout",
                                         cl::desc("Put this layout on every struct instead of choosing one (aos, soa "
                                                  "or clustered: the field access tree's clusters), to time the "
                                                  "layouts against each other; the report still shows what relayout "
                                                  "would choose"),
                                         cl::value_desc("aos|soa|clustered"), cl::sub(command));
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

// What follows the profile: decide, report and rewrite.
// The rewritten tree has the instrumented tree's shape: paths from the same root.
static llvm::Error analyzeAndRewrite(const std::vector<std::string>& siteMaps, const std::string& profilePath,
                                     const std::vector<std::string>& trailing, const std::string& root) {
  std::optional<Layout> forced;
  if (!forcedLayout.empty()) forced = *layoutNamed(forcedLayout, "--layout");  // checked before anything ran
  auto analysis = analyzeFiles(siteMaps, profilePath, forced);
  if (!analysis) return analysis.takeError();
  llvm::outs() << renderTerminalReport(*analysis);

  OutputSet outputs;
  const std::string planPath = outDir + "/plan.json";
  outputs.add(planPath, analysis->plan.toJson().dump(1) + "\n");
  RewriteDestination rewritten{RewriteOutput::OutRoot, outDir + "/rewritten", root};
  if (llvm::Error err = rewriteAndStage(analysis->plan, planPath, files, buildDir, trailing, rewritten, outputs,
                                        &analysis->rewrite))
    return err;
  // The reports say, per struct, whether its layout was applied.
  outputs.add(outDir + "/report.md", renderMarkdownReport(*analysis));
  outputs.add(outDir + "/report.html", renderHtmlReport(*analysis));
  outputs.add(outDir + "/report.json", renderJsonReport(*analysis).dump(1) + "\n");
  return outputs.commit(files);
}

// optimize --verify's builds: the user's program from the original sources and from DIR/rewritten's
// (its copies of the include folders searched first), with the instrumented build's units and flags.
static VerifyRequest describeVerification(const BuildRequest& build, const InstrumentResult& units) {
  VerifyRequest request{build, build, RELAYOUT_NVCC, runArguments(), outDir};
  request.original.copiedIncludeRoots.clear();
  request.rewritten.copiedIncludeRoots.clear();
  const std::string rewrittenDir = outDir + "/rewritten";
  std::vector<std::string>& roots = request.rewritten.copiedIncludeRoots;
  for (size_t i = 0; i < build.units.size() && i < units.units.size(); ++i) {
    request.original.units[i].instrumentedSource = build.units[i].originalSource;
    request.rewritten.units[i].instrumentedSource = rewrittenDir + "/" + units.units[i].relativePath;
    // Only the folders of headers that changed are there.
    for (const std::string& root : copiedIncludeRoots(build.units[i].flags, units.root, rewrittenDir))
      if (llvm::sys::fs::is_directory(root) && std::find(roots.begin(), roots.end(), root) == roots.end())
        roots.push_back(root);
  }
  return request;
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(outDir)) return reportError(std::move(err));
  if (llvm::Error err = verifyFlags.check(buildOnly)) return reportError(std::move(err));
  if (!forcedLayout.empty())
    if (llvm::Expected<Layout> layout = layoutNamed(forcedLayout, "--layout"); !layout)
      return reportError(layout.takeError());
  if (buildOnly && (recordedProfile.getNumOccurrences() || runArgs.getNumOccurrences()))
    return reportError("--build-only stops before the profiled run: --run and --recorded-profile have no use with it");
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
  for (const std::string& file : {instrumentedDir + "/program", outDir + "/profile.json", outDir + "/profile.trace"})
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
  auto rest = [&]() -> llvm::Error {
    if (building)
      if (llvm::Error err = runBuild(planBuild(build, relayoutToolchain()))) return err;
    if (buildOnly) return llvm::Error::success();
    auto profilePath = gpu.available ? profileOnGpu(build.program) : useRecordedProfile(gpu);
    if (!profilePath) return profilePath.takeError();
    return analyzeAndRewrite(*siteMaps, *profilePath, trailing, units.root);
  };
  if (llvm::Error err = rest()) {
    // A failed run leaves nothing of its own behind.
    for (const std::string& file : byProfiling) llvm::sys::fs::remove(file);
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
  return verifyRewrite(describeVerification(build, units), verifyFlags, gpu.available, gpu.why);
}

Subcommand optimizeSubcommand{command, run};

}  // namespace relayout
