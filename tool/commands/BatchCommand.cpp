// relayout batch: `relayout optimize` over the applications of a TOML manifest.
#include "batch/Manifest.h"
#include "batch/Runner.h"
#include "batch/Slurm.h"
#include "batch/Stages.h"
#include "build/Toolchain.h"
#include "commands/Commands.h"
#include "verify/Gpu.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command(
    "batch",
    "Run `relayout optimize` (profile, choose, rewrite, verify) over every application of a manifest, one per "
    "visible GPU at a time, and write a summary:\n"
    "  OUT/apps/NAME/     optimize's folder for the application (profile, plan, reports, rewritten/, verify/)\n"
    "  OUT/logs/NAME.log  everything it printed;  OUT/state/NAME.json  what it ended with\n"
    "  OUT/summary.md, OUT/summary.json  per application: result, structs and layouts, kernel speed-up\n"
    "A second run skips the applications that finished (verified, or rejected by verification) unless --force, "
    "and those that failed or timed out unless --retry; one failing application never stops the others. Exit "
    "status 0 when every application verified, 1 otherwise, 130 when interrupted.\n"
    "MANIFEST (default: the bundled samples, PREFIX/share/relayout/samples/batch.toml) is TOML: [defaults] and "
    "one [[app]] table per application, with the keys name, dir (its folder, relative to the manifest; the "
    "program runs there), sources (relative to dir), flags (nvcc's) or build (a folder with "
    "compile_commands.json), run (the program's arguments), compare (files it writes), ignore_lines, rtol, "
    "atol, repeat, recorded_profile (used without a GPU), timeout (seconds, default 3600), options (more "
    "`relayout optimize` options) and variants ({ NAME = [SOURCES] }: hand-written versions, built with the same "
    "flags and timed against the same original beside relayout's rewrite) with variant_options (more "
    "relayout-verify options for their comparisons). Every problem of a manifest is reported with its file:line:col before "
    "anything runs.\n"
    "Where the GPU machine has no relayout (a cluster's GPU nodes): --prepare FOLDER, run FOLDER/run.sh there, "
    "--collect FOLDER (which writes FOLDER-verify), run FOLDER-verify/run.sh there, --collect FOLDER-verify; "
    "or --slurm FOLDER, which does all of it, submitting each run.sh as a Slurm job array.");
static cl::opt<std::string> manifestPath(cl::Positional, cl::desc("[MANIFEST.toml]"), cl::sub(command));
static cl::opt<std::string> outDir("o", cl::desc("Output folder (default: relayout-batch)"), cl::value_desc("OUT"),
                                   cl::init("relayout-batch"), cl::sub(command));
static cl::opt<unsigned> jobs("jobs", cl::desc("Applications at once (default: one per visible GPU, 1 without a GPU)"),
                              cl::value_desc("N"), cl::init(0), cl::sub(command));
static cl::opt<bool> force("force", cl::desc("Run the applications that finished in an earlier run again"),
                           cl::sub(command));
static cl::opt<bool> retry("retry", cl::desc("Run the applications that failed or timed out again"), cl::sub(command));
static cl::list<std::string> only("only", cl::desc("Only these applications (comma-separated, repeatable)"),
                                  cl::value_desc("NAME,..."), cl::CommaSeparated, cl::sub(command));
static cl::opt<std::string> prepareFolder(
    "prepare",
    cl::desc("For a GPU machine without relayout (a cluster's GPU nodes): build each application's instrumented "
             "program here and write them to FOLDER (new) with run.sh, which runs them where the GPU is; then "
             "--collect FOLDER"),
    cl::value_desc("FOLDER"), cl::sub(command));
static cl::opt<std::string> collectFolder(
    "collect",
    cl::desc("Take back what a prepared FOLDER's run.sh wrote: after profiling, decide, rewrite and write "
             "FOLDER-verify with each original and rewritten program, relayout-verify and run.sh; after "
             "verification, record what it found"),
    cl::value_desc("FOLDER"), cl::sub(command));
static cl::opt<std::string> slurmFolder(
    "slurm",
    cl::desc("On a Slurm cluster's login node: --prepare FOLDER, submit its programs as a job array with sbatch "
             "(FOLDER/slurm.sh, one task per application), wait for it, collect; then the same for FOLDER-verify"),
    cl::value_desc("FOLDER"), cl::sub(command));
static cl::opt<unsigned> slurmGpusPerTask("slurm-gpus-per-task",
                                          cl::desc("GPUs each --slurm task asks for (--gres=gpu:N; 0: none)"),
                                          cl::value_desc("N"), cl::init(1), cl::sub(command));
static cl::list<std::string> slurmOptions(
    "slurm-option", cl::desc("Passed to sbatch with --slurm (repeatable): --slurm-option=--partition=gpu"),
    cl::value_desc("ARG"), cl::sub(command));
static cl::opt<std::string> slurmBeforeSubmit(
    "slurm-before-submit",
    cl::desc("For testing: run PROGRAM FOLDER STAGE before each --slurm submission (the test puts stand-ins for "
             "the programs there)"),
    cl::value_desc("PROGRAM"), cl::Hidden, cl::sub(command));
static cl::opt<unsigned> candidateCount(
    "candidates",
    cl::desc("Rewrites of each application to time against its original (optimize --candidates; default 3)"),
    cl::value_desc("K"), cl::init(3), cl::sub(command));
static cl::opt<bool> everyLayout("candidates-every-layout",
                                 cl::desc("Also time soa and clustered on every struct of each application "
                                          "(optimize --candidates-every-layout: the selection benchmark)"),
                                 cl::sub(command));
static cl::opt<bool> checkOnly("check", cl::desc("Read and check the manifest, list its applications, run nothing"),
                               cl::sub(command));

static std::string defaultManifest() {
  llvm::SmallString<256> p(relayoutPrefix());
  llvm::sys::path::append(p, "share", "relayout", "samples", "batch.toml");
  return std::string(p);
}

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("batch takes no arguments after `--`");
  const std::string path = manifestPath.empty() ? defaultManifest() : std::string(manifestPath);
  if (manifestPath.empty()) llvm::errs() << "relayout: batch: the bundled samples' manifest, " << path << "\n";
  llvm::Expected<batch::Manifest> manifest = batch::readManifest(path);
  if (!manifest) {
    llvm::errs() << llvm::toString(manifest.takeError()) << "\n";
    return 1;
  }
  for (const std::string& name : only)
    if (llvm::none_of(manifest->apps, [&](const batch::App& a) { return a.name == name; }))
      return reportError("--only names '" + name + "', which " + path + " does not list");
  if (checkOnly) {
    for (const batch::App& app : manifest->apps)
      llvm::outs() << app.name << "\t" << app.dir << "\t" << llvm::join(app.sources, " ") << "\n";
    return 0;
  }
  batch::RunOptions options;
  llvm::SmallString<256> out(outDir);
  llvm::sys::fs::make_absolute(out);
  options.outDir = std::string(out);
  options.relayout = llvm::sys::fs::getMainExecutable("relayout", reinterpret_cast<void*>(&defaultManifest));
  const GpuAvailability gpu = detectGpu();
  options.gpus = gpu.available ? gpu.devices : 0;
  options.jobs = jobs ? jobs : static_cast<unsigned>(std::max(options.gpus, 1));
  options.force = force;
  options.retry = retry;
  options.only.insert(only.begin(), only.end());
  if (candidateCount.getNumOccurrences())
    options.optimizeOptions.push_back("--candidates=" + std::to_string(std::max(1u, candidateCount.getValue())));
  if (everyLayout) options.optimizeOptions.push_back("--candidates-every-layout");
  if (!prepareFolder.empty() + !collectFolder.empty() + !slurmFolder.empty() > 1)
    return reportError("give one of --prepare, --collect and --slurm");
  if (slurmFolder.empty() &&
      (slurmGpusPerTask.getNumOccurrences() || !slurmOptions.empty() || !slurmBeforeSubmit.empty()))
    return reportError("--slurm-gpus-per-task, --slurm-option and --slurm-before-submit go with --slurm");
  auto absolute = [](const std::string& p) {
    llvm::SmallString<256> a(p);
    llvm::sys::fs::make_absolute(a);
    return std::string(a);
  };
  if (!prepareFolder.empty()) return batch::prepareProfiling(*manifest, options, absolute(prepareFolder));
  if (!collectFolder.empty()) return batch::collect(*manifest, options, absolute(collectFolder));
  if (!slurmFolder.empty()) {
    batch::SlurmOptions slurm;
    slurm.gpusPerTask = slurmGpusPerTask;
    slurm.sbatchOptions.assign(slurmOptions.begin(), slurmOptions.end());
    slurm.beforeSubmit = slurmBeforeSubmit;
    return batch::runWithSlurm(*manifest, options, absolute(slurmFolder), slurm);
  }
  if (!gpu.available) llvm::errs() << "relayout: batch: no GPU (" << gpu.why << ")\n";
  return batch::runBatch(*manifest, options);
}

Subcommand batchSubcommand{command, run};

}  // namespace relayout
