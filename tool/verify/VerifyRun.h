// relayout optimize --verify: builds the original and the rewritten program plainly, then runs both
// with the same arguments, compares their outputs and times them as relayout-verify does
// (VerifyPrograms.h; the judgement: Verify.h).
#pragma once

#include "build/BuildPlan.h"
#include "verify/VerifyPrograms.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

// The verification options of a subcommand.
class VerifyFlags {
 public:
  explicit VerifyFlags(llvm::cl::SubCommand& command);
  // Checks the values, and that none is given with --build-only (which stops before the rewrite).
  llvm::Error check(bool buildOnly) const;
  bool requested() const { return verify_; }  // --verify given
  bool skipped() const { return noVerify_; }  // --no-verify given
  verify::Options options() const;

 private:
  llvm::cl::opt<bool> verify_;
  llvm::cl::opt<bool> noVerify_;
  verify::ComparisonFlags comparison_;
};

struct VerifyRequest {
  // How each program is built: units, flags and, for each candidate, its rewritten sources
  // (DIR/candidates/NAME/) and copiedIncludeRoots. verifyRewrite sets the programs' places and makes
  // every build plain.
  BuildRequest original;
  std::vector<std::pair<std::string, BuildRequest>> candidates;  // by name
  std::string nvcc;
  std::vector<std::string> runArgs;  // the same for every run of every program
  std::string outDir;                // DIR: holds rewritten/ and candidates/, gets verify/ (and rejected/)
};

// Builds the original into DIR/verify/original/program and each candidate into
// DIR/verify/NAME/program. With `runHere`, runs them `repeat` times each, interleaved, in the current
// folder; compares standard output and every --compare file of each candidate's runs with the
// original's; prints a table, writes DIR/verify/verify.json, and applies what was measured faster
// (applySelection, Selection.h): DIR/rewritten is then that candidate, or gone when none was faster,
// or moved to DIR/rejected when none printed what the original printed. Without `runHere` (no GPU
// here), warns that nothing is verified and prints the relayout-verify command that runs the programs
// on a machine with a GPU. Returns the exit status: 0 applied, untouched or slower (or built, not
// run), 3 no candidate equal, 1 the original failed (or could not be built) or another error, 4
// under --require-speedup when nothing was faster. `why`: why it cannot run here.
int verifyRewrite(const VerifyRequest& request, const VerifyFlags& flags, bool runHere, const std::string& why = "");

}  // namespace relayout
