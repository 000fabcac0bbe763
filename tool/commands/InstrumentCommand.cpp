// relayout instrument: hooks on every struct-field access in device code, and a site map per file.
#include "build/CompileFlags.h"
#include "commands/Commands.h"
#include "commands/Pipeline.h"
#include "commands/SamplingFlags.h"

#include "relayout/core/Files.h"
#include "relayout/rewriter/Rewriter.h"

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
                              "The project's own headers that the sources include (files below the sources' folders "
                              "and their -I/-iquote folders) are instrumented too, once for all sources.\n"
                              "Writes the instrumented tree under DIR, each file at its path relative to the common "
                              "folder of the sources and headers (build the sources there with nvcc -I "
                              "<relayout>/runtime/include, link librelayout_rt.a -lcupti -lcuda), and a "
                              "NAME.sites.json beside each source.\n"
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
    "trace-capacity",
    cl::desc("Trace records each source file's buffer holds, 32 bytes each on the GPU "
             "(default 1048576), split evenly among its kernels; warp accesses beyond a kernel's "
             "share are counted as dropped"),
    cl::value_desc("RECORDS"), cl::init(InstrumentOptions::kDefaultTraceCapacity), cl::sub(command));
static cl::opt<unsigned> traceLaunches(
    "trace-launches",
    cl::desc("Trace the first N launches of each kernel (default 2; 0: all), among those "
             "that classify (--sample-launches)"),
    cl::value_desc("N"), cl::init(2), cl::sub(command));
static cl::opt<unsigned> traceDepth(
    "trace-depth",
    cl::desc("Each traced warp records its first N accesses (default 64); a kernel's share of the buffer goes "
             "to as many warps as it holds at that depth: a larger N shows longer runs of one warp's accesses"),
    cl::value_desc("N"), cl::init(InstrumentOptions::kDefaultTraceDepth), cl::sub(command));

// Says what was found per unit, and never leaves "0 access sites" without a word of why.
static void reportInstrumentSummary(const InstrumentResult& result) {
  size_t total = 0;
  for (const InstrumentedUnit& unit : result.units) {
    const SiteMap& map = unit.siteMap;
    total += map.sites.size();
    std::string headers;
    if (map.files.size() > 1) headers = fmt::format(" (in {} files)", map.files.size());
    llvm::errs() << fmt::format("relayout: {}: {} access sites{}, {} loops, {} struct types\n", unit.sourcePath,
                                map.sites.size(), headers, map.loops.size(), map.structs.size());
  }
  if (total == 0)
    llvm::errs() << "relayout: warning: no struct-field access was found in the device code of these sources or "
                    "of the project headers they include (the folders of the sources and of their -I flags); the "
                    "warnings above say which uses could not be counted\n";
}

llvm::Error checkSourcesExist(const std::vector<std::string>& sources) {
  for (const std::string& source : sources) {
    if (llvm::sys::fs::is_directory(source)) return fileError(source, "is a folder, not a source file");
    if (!llvm::sys::fs::is_regular_file(source)) return fileError(source, "no such source file");
  }
  return llvm::Error::success();
}

std::string siteMapPathFor(const std::string& dir, const InstrumentedUnit& unit) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, unit.relativePath);
  llvm::sys::path::replace_extension(path, ".sites.json");
  return path.str().str();
}

llvm::Expected<std::vector<std::string>> stageInstrumented(const std::vector<std::string>& sources,
                                                           const std::string& buildDirectory,
                                                           const std::vector<std::string>& flags,
                                                           const InstrumentOptions& options, const std::string& dir,
                                                           OutputSet& outputs, InstrumentResult* keep) {
  if (llvm::Error err = checkSourcesExist(sources)) return err;
  auto db = makeCompilationDatabase(buildDirectory, flags);
  if (!db) return db.takeError();
  if (llvm::Error err = checkSourcesInDatabase(**db, buildDirectory, sources)) return err;
  InstrumentOptions withFolders = options;
  for (const std::string& folder : compileDatabaseFolders(**db)) withFolders.projectFolders.push_back(folder);
  auto result = instrumentSources(sources, **db, withFolders);
  if (!result) return result.takeError();
  // The walk above parses the host side; code only the device side compiles is not seen there, and
  // a device side Clang cannot compile at all is said so, not passed over.
  for (const std::string& source : sources)
    if (std::optional<std::string> error = deviceSideError(**db, source))
      reportWarning(source + ": Clang cannot compile it for the device as it is (nvcc may): " + *error +
                    "; accesses in code only the device side compiles (#if __CUDA_ARCH__) are not instrumented, "
                    "and rewrite will refuse to change the layouts of the structs it uses");
  std::vector<std::string> siteMaps;
  std::set<std::string> written;
  auto place = [&](const std::string& relative) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, relative);
    return path.str().str();
  };
  for (const InstrumentedUnit& unit : result->units) {
    std::string siteMap = siteMapPathFor(dir, unit);
    if (!written.insert(siteMap).second)
      return fileError(unit.sourcePath, "another source has the same name in the same folder");
    outputs.add(place(unit.relativePath), unit.instrumentedText);
    outputs.add(siteMap, unit.siteMap.toJson().dump(1) + "\n");
    siteMaps.push_back(siteMap);
  }
  for (const InstrumentedHeader& header : result->headers) outputs.add(place(header.relativePath), header.text);
  reportInstrumentSummary(*result);
  if (keep) *keep = std::move(*result);
  return siteMaps;
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(outDir)) return reportError(std::move(err));
  InstrumentOptions options;
  if (llvm::Error err = sampling.apply(options)) return reportError(std::move(err));
  const bool traceOptionsGiven =
      traceCapacity.getNumOccurrences() || traceLaunches.getNumOccurrences() || traceDepth.getNumOccurrences();
  if (traceOptionsGiven && !trace)
    return reportError("--trace-capacity, --trace-launches and --trace-depth need --trace");
  if (traceDepth == 0 || traceDepth > 2048) return reportError("--trace-depth must be between 1 and 2048");
  if (trace && traceCapacity == 0) return reportError("--trace-capacity must be at least 1");
  // A device array of more than 2^31 records (64 GiB) would not be a sensible static allocation.
  if (trace && traceCapacity > (1ull << 31)) return reportError("--trace-capacity must be at most 2147483648");
  options.traceCapacity = trace ? traceCapacity.getValue() : 0;
  options.traceLaunches = traceLaunches;
  options.traceDepth = traceDepth;
  OutputSet outputs;
  auto staged = stageInstrumented(files, buildDir, trailing, options, outDir, outputs, nullptr);
  if (!staged) return reportError(staged.takeError());
  if (llvm::Error err = outputs.commit(files)) return reportError(std::move(err));
  llvm::errs() << "relayout: wrote " << outputs.files().size() << (outputs.files().size() == 1 ? " file" : " files")
               << " to " << outDir << "\n";
  return 0;
}

Subcommand instrumentSubcommand{command, run};

}  // namespace relayout
