// relayout optimize: instrument, build, profile, analyze and rewrite in one go.
#include "Commands.h"
#include "CompileFlags.h"
#include "Gpu.h"
#include "Pipeline.h"
#include "SamplingFlags.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <set>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("optimize",
                              "Instrument the sources, build and run the instrumented program once on the GPU, "
                              "choose a layout per struct and rewrite the sources, all under the output folder:\n"
                              "  DIR/instrumented/  instrumented sources, site maps and program\n"
                              "  DIR/profile.json   the profile;  DIR/plan.json, DIR/report.{md,html,json}  the decision\n"
                              "  DIR/rewritten/     the rewritten sources and headers, in the sources' tree\n"
                              "Outputs appear only when a step succeeds; a failed run removes what it wrote.\n"
                              "Flags after `--` are nvcc's, used to build the instrumented program and to parse.\n"
                              "Without a GPU, --recorded-profile names a profile recorded earlier on a GPU from "
                              "the same sources; relayout says when it uses one.");
static cl::list<std::string> files(cl::Positional, cl::desc("FILE.cu..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> outDir("o", cl::desc("Output folder (default: relayout-out)"), cl::value_desc("DIR"),
                                   cl::init("relayout-out"), cl::sub(command));
static cl::opt<std::string> runArgs("run", cl::desc("Arguments for the profiled run of the program"),
                                    cl::value_desc("'ARGS'"), cl::sub(command));
static cl::opt<std::string> recordedProfile("recorded-profile",
                                            cl::desc("Profile to use when this machine has no GPU"),
                                            cl::value_desc("P.json"), cl::sub(command));
static SamplingFlags sampling(command);
static cl::opt<bool> noTrace("no-trace",
                             cl::desc("Profile without the trace: the paper's rule decides instead of the traffic "
                                      "model (cheaper to profile; see docs/results/selection-h100.md)"),
                             cl::sub(command));
static cl::opt<std::string> buildDir("p", cl::desc("Build folder holding compile_commands.json"),
                                     cl::value_desc("BUILD"), cl::sub(command));

// nvcc builds the instrumented program with the user's flags, the runtime and CUPTI.
static llvm::Error buildInstrumented(const std::vector<InstrumentedUnit>& units, const std::string& instrumentedDir,
                                     const std::vector<std::string>& flags, const std::string& program) {
  std::vector<std::string> args = {RELAYOUT_NVCC, "-lineinfo", "-I", RELAYOUT_RUNTIME_INCLUDE_DIR};
  if (std::none_of(flags.begin(), flags.end(), [](const std::string& f) { return isNvccArchFlag(f); }))
    args.push_back("-arch=native");
  std::set<std::string> sourceDirs;
  for (const InstrumentedUnit& unit : units) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(unit.sourcePath));
    if (dir.empty()) dir = ".";
    if (sourceDirs.insert(dir.str().str()).second) args.insert(args.end(), {"-I", dir.str().str()});
  }
  args.insert(args.end(), flags.begin(), flags.end());
  for (const InstrumentedUnit& unit : units)
    args.push_back(instrumentedDir + "/" + llvm::sys::path::filename(unit.sourcePath).str());
  args.insert(args.end(), {"-o", program, RELAYOUT_RUNTIME_LIBRARY, "-L" RELAYOUT_CUPTI_LIBRARY_DIR,
                           "-Xlinker", "-rpath=" RELAYOUT_CUPTI_LIBRARY_DIR, "-lcupti", "-lcuda"});
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  llvm::errs() << "relayout: building the instrumented program: " << llvm::join(args, " ") << "\n";
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(RELAYOUT_NVCC, argRefs, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "nvcc could not build the instrumented program" + (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
}

static llvm::Expected<std::string> obtainProfile(const std::vector<InstrumentedUnit>& units,
                                                 const std::string& instrumentedDir,
                                                 const std::vector<std::string>& flags) {
  GpuAvailability gpu = detectGpu();
  if (!gpu.available) {
    if (recordedProfile.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot profile: " + gpu.why + "; give --recorded-profile P.json to use a "
                                     "profile recorded on a GPU from the same sources");
    auto profile = Profile::load(recordedProfile);
    if (!profile) return profile.takeError();
    llvm::errs() << fmt::format("relayout: no GPU here ({}): using the profile recorded on {} at {} from {}\n",
                                gpu.why, profile->device, profile->created, recordedProfile.getValue());
    return recordedProfile.getValue();
  }
  std::string program = instrumentedDir + "/program";
  if (llvm::Error err = buildInstrumented(units, instrumentedDir, flags, program)) return err;
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char*, 16> tokens;
  llvm::cl::TokenizeGNUCommandLine(runArgs, saver, tokens);
  std::vector<std::string> commandLine = {program};
  for (const char* t : tokens) commandLine.push_back(t);
  std::string profilePath = outDir + "/profile.json";
  llvm::errs() << "relayout: profiling: " << llvm::join(commandLine, " ") << "\n";
  if (llvm::Error err = runProfiled(commandLine, profilePath)) return err;
  return profilePath;
}

// Everything after the instrumented sources are written: profile, decide, rewrite.
static llvm::Error profileAnalyzeRewrite(const std::vector<InstrumentedUnit>& units,
                                         const std::vector<std::string>& siteMaps, const std::string& instrumentedDir,
                                         const std::vector<std::string>& trailing) {
  auto profilePath = obtainProfile(units, instrumentedDir, trailing);
  if (!profilePath) return profilePath.takeError();
  auto analysis = analyzeFiles(siteMaps, *profilePath);
  if (!analysis) return analysis.takeError();
  llvm::outs() << renderTerminalReport(*analysis);

  OutputSet outputs;
  const std::string planPath = outDir + "/plan.json";
  outputs.add(planPath, analysis->plan.toJson().dump(1) + "\n");
  outputs.add(outDir + "/report.md", renderMarkdownReport(*analysis));
  outputs.add(outDir + "/report.html", renderHtmlReport(*analysis));
  outputs.add(outDir + "/report.json", renderJsonReport(*analysis).dump(1) + "\n");
  RewriteDestination rewritten{RewriteOutput::OutRoot, outDir + "/rewritten", ""};
  if (llvm::Error err = rewriteAndStage(analysis->plan, planPath, files, buildDir, trailing, rewritten, outputs))
    return err;
  return outputs.commit(files);
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(outDir)) return reportError(std::move(err));
  const std::string instrumentedDir = outDir + "/instrumented";
  OutputSet instrumented;
  std::vector<InstrumentedUnit> units;
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

  if (llvm::Error err = profileAnalyzeRewrite(units, *siteMaps, instrumentedDir, trailing)) {
    // A failed run leaves nothing of its own behind.
    for (const std::string& file : byProfiling) llvm::sys::fs::remove(file);
    instrumented.removeCommitted();
    return reportError(std::move(err));
  }
  llvm::errs() << "relayout: plan, report and rewritten sources are in " << outDir << "\n";
  return 0;
}

Subcommand optimizeSubcommand{command, run};

}  // namespace relayout
