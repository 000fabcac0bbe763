// relayout merge: one profile from the per-rank profiles of an MPI run (or several runs).
#include "commands/Commands.h"
#include "outputs/Outputs.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

#include <map>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command(
    "merge",
    "Combine profiles of the ranks of one MPI run (an instrumented program under "
    "mpirun or srun writes PROFILE.rankN.json per rank) or of several runs: counters "
    "of the same sources add up, and the first profile's trace is kept (named from the merged "
    "profile's folder). The result is analyzed like any profile.");
static cl::list<std::string> inputs(cl::Positional, cl::desc("PROFILE.json..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> output("o", cl::desc("Merged profile to write"), cl::value_desc("MERGED.json"),
                                   cl::Required, cl::sub(command));

// The folder of `file`, absolute and without `.` or `..` (relativePath compares names).
static std::string parentFolder(const std::string& file) {
  llvm::SmallString<256> folder(absolutePath(file));
  llvm::sys::path::remove_dots(folder, /*remove_dot_dot=*/true);
  llvm::sys::path::remove_filename(folder);
  return folder.str().str();
}

// `target` named from `from` (both absolute), with `..` where `from` is deeper: "../run1/p.trace".
static std::string relativePath(const std::string& target, const std::string& from) {
  llvm::SmallVector<llvm::StringRef, 16> to, here;
  llvm::StringRef(target).split(to, '/', -1, /*KeepEmpty=*/false);
  llvm::StringRef(from).split(here, '/', -1, /*KeepEmpty=*/false);
  size_t common = 0;
  while (common < to.size() && common < here.size() && to[common] == here[common]) ++common;
  std::string out;
  for (size_t i = common; i < here.size(); ++i) out += "../";
  for (size_t i = common; i < to.size(); ++i) out += to[i].str() + (i + 1 < to.size() ? "/" : "");
  return out;
}

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("merge takes no arguments after `--`");
  if (llvm::Error err = checkGivenOnce(output)) return reportError(std::move(err));
  // One profile given twice (by two names, or copied) would count its run twice.
  std::map<std::string, std::string> seen;  // sha256 of the contents -> the first path with them
  for (const std::string& path : inputs) {
    llvm::Expected<std::string> bytes = readFile(path);
    if (!bytes) return reportError(bytes.takeError());
    auto [first, fresh] = seen.emplace(sha256Hex(*bytes), path);
    if (!fresh)
      return reportError(path + ": the same profile as " + first->second +
                         " (identical contents): merging it twice would count its run twice");
  }
  auto merged = mergeProfileFiles(inputs);
  if (!merged) return reportError(merged.takeError());
  if (merged->trace) {
    // The kept trace lies beside the first profile; the merged one names it from its own folder.
    merged->trace->file = relativePath(parentFolder(inputs.front()) + "/" + merged->trace->file, parentFolder(output));
    llvm::errs() << "relayout: kept the trace of " << inputs.front()
                 << " (the ranks run the same kernels; the merged counters weigh it)\n";
  }
  OutputSet outputs;
  outputs.add(output, merged->toJson().dump(1) + "\n");
  if (llvm::Error err = outputs.commit(inputs)) return reportError(std::move(err));
  llvm::errs() << "relayout: merged " << inputs.size() << " profiles into " << output << "\n";
  return 0;
}

Subcommand mergeSubcommand{command, run};

}  // namespace relayout
