// relayout merge: one profile from the per-rank profiles of an MPI run (or several runs).
#include "Commands.h"
#include "Outputs.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

#include <map>

#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("merge",
                              "Combine profiles of the ranks of one MPI run (an instrumented program under "
                              "mpirun or srun writes PROFILE.rankN.json per rank) or of several runs: counters "
                              "of the same sources add up. The result is analyzed like any profile.");
static cl::list<std::string> inputs(cl::Positional, cl::desc("PROFILE.json..."), cl::OneOrMore, cl::sub(command));
static cl::opt<std::string> output("o", cl::desc("Merged profile to write"), cl::value_desc("MERGED.json"),
                                   cl::Required, cl::sub(command));

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
  OutputSet outputs;
  outputs.add(output, merged->toJson().dump(1) + "\n");
  if (llvm::Error err = outputs.commit(inputs)) return reportError(std::move(err));
  llvm::errs() << "relayout: merged " << inputs.size() << " profiles into " << output << "\n";
  return 0;
}

Subcommand mergeSubcommand{command, run};

}  // namespace relayout
