// relayout instrument: hooks on every struct-field access in device code, and a site map per file.
#include "CompileFlags.h"
#include "Commands.h"
#include "Pipeline.h"
#include "SamplingFlags.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("instrument",
                              "Instrument CUDA sources: every struct-field access in __global__ and __device__ "
                              "code gets a site id and a hook that classifies its warp's access on the GPU.\n"
                              "Writes DIR/NAME.cu (build it with nvcc -I <relayout>/runtime/include -I <source "
                              "folder>, link librelayout_rt.a -lcupti -lcuda) and DIR/NAME.sites.json.\n"
                              "Compiler flags (nvcc's) follow `--`, or come from -p BUILD/compile_commands.json.");
static cl::list<std::string> files(cl::Positional, cl::desc("FILE.cu..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> outDir("o", cl::desc("Output folder (default: relayout-out/instrumented)"),
                                   cl::value_desc("DIR"), cl::init("relayout-out/instrumented"), cl::sub(command));
static cl::opt<std::string> buildDir("p", cl::desc("Build folder holding compile_commands.json"),
                                     cl::value_desc("BUILD"), cl::sub(command));
static SamplingFlags sampling(command);
static cl::opt<bool> trace("trace",
                           cl::desc("Also record every sampled warp access, lane by lane, in a bounded buffer "
                                    "written at exit beside the profile as NAME.trace (docs/formats.md)"),
                           cl::sub(command));
static cl::opt<unsigned long long> traceCapacity(
    "trace-capacity", cl::desc("Trace records each source file's buffer holds, 32 bytes each on the GPU "
                               "(default 1048576), split evenly among its kernels; warp accesses beyond a kernel's "
                               "share are counted as dropped"),
    cl::value_desc("RECORDS"), cl::init(InstrumentOptions::kDefaultTraceCapacity), cl::sub(command));
static cl::opt<unsigned> traceLaunches("trace-launches",
                                       cl::desc("Trace the first N launches of each kernel (default 2; 0: all)"),
                                       cl::value_desc("N"), cl::init(2), cl::sub(command));

static void reportInstrumentWarningsSummary(const std::vector<InstrumentedUnit>& units) {
  for (const InstrumentedUnit& unit : units)
    llvm::errs() << fmt::format("relayout: {}: {} access sites, {} loops, {} struct types\n", unit.sourcePath,
                                unit.siteMap.sites.size(), unit.siteMap.loops.size(), unit.siteMap.structs.size());
}

llvm::Error checkSourcesExist(const std::vector<std::string>& sources) {
  for (const std::string& source : sources)
    if (!llvm::sys::fs::is_regular_file(source)) return fileError(source, "no such source file");
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::string>> stageInstrumented(const std::vector<std::string>& sources,
                                                           const std::string& buildDirectory,
                                                           const std::vector<std::string>& flags,
                                                           const InstrumentOptions& options, const std::string& dir,
                                                           OutputSet& outputs, std::vector<InstrumentedUnit>* keep) {
  if (llvm::Error err = checkSourcesExist(sources)) return err;
  auto db = makeCompilationDatabase(buildDirectory, flags);
  if (!db) return db.takeError();
  auto units = instrumentSources(sources, **db, options);
  if (!units) return units.takeError();
  std::vector<std::string> siteMaps;
  std::set<std::string> stems;
  for (const InstrumentedUnit& unit : *units) {
    llvm::StringRef stem = llvm::sys::path::stem(unit.sourcePath);
    llvm::StringRef extension = llvm::sys::path::extension(unit.sourcePath);
    if (!stems.insert(stem.str()).second)
      return fileError(unit.sourcePath, "another source has the same name; instrument them into separate folders");
    std::string base = (llvm::Twine(dir) + "/" + stem).str();
    outputs.add(base + extension.str(), unit.instrumentedText);
    outputs.add(base + ".sites.json", unit.siteMap.toJson().dump(1) + "\n");
    siteMaps.push_back(base + ".sites.json");
  }
  reportInstrumentWarningsSummary(*units);
  if (keep) *keep = std::move(*units);
  return siteMaps;
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(outDir)) return reportError(std::move(err));
  InstrumentOptions options;
  if (llvm::Error err = sampling.apply(options)) return reportError(std::move(err));
  const bool traceOptionsGiven = traceCapacity.getNumOccurrences() || traceLaunches.getNumOccurrences();
  if (traceOptionsGiven && !trace) return reportError("--trace-capacity and --trace-launches need --trace");
  if (trace && traceCapacity == 0) return reportError("--trace-capacity must be at least 1");
  // A device array of more than 2^31 records (64 GiB) would not be a sensible static allocation.
  if (trace && traceCapacity > (1ull << 31)) return reportError("--trace-capacity must be at most 2147483648");
  options.traceCapacity = trace ? traceCapacity.getValue() : 0;
  options.traceLaunches = traceLaunches;
  OutputSet outputs;
  auto staged = stageInstrumented(files, buildDir, trailing, options, outDir, outputs, nullptr);
  if (!staged) return reportError(staged.takeError());
  if (llvm::Error err = outputs.commit(files)) return reportError(std::move(err));
  llvm::errs() << "relayout: wrote " << outputs.files().size() << " files to " << outDir << "\n";
  return 0;
}

Subcommand instrumentSubcommand{command, run};

}  // namespace relayout
