// relayout optimize --verify: builds the original and the rewritten program plainly, then runs both
// with the same arguments, compares their outputs and times them as relayout-verify does
// (VerifyPrograms.h; the judgement: Verify.h).
#pragma once

#include "BuildPlan.h"
#include "VerifyPrograms.h"

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
  // How each program is built: units, flags and, for the rewritten one, DIR/rewritten's sources
  // and copiedIncludeRoots. verifyRewrite sets the programs' places and makes both builds plain.
  BuildRequest original, rewritten;
  std::string nvcc;
  std::vector<std::string> runArgs;  // the same for every run of both
  std::string outDir;                // DIR: holds rewritten/, gets verify/ (and rejected/)
};

// Builds both programs into DIR/verify/{original,rewritten}/program. With `runHere`, runs them
// `repeat` times each, interleaved, in the current folder; compares standard output and every
// --compare file of each pair of runs; prints a table and writes DIR/verify/verify.json. Without it
// (no GPU here), warns that the rewrite is not verified and prints the relayout-verify command that
// runs the two programs on a machine with a GPU. On a mismatch (or a rewritten program that does not
// build) DIR/rewritten is moved to DIR/rejected. Returns the exit status: 0 equal (or built, not
// run), 3 mismatch, 1 the original failed (or could not be built) or another error. `why`: why it
// cannot run here.
int verifyRewrite(const VerifyRequest& request, const VerifyFlags& flags, bool runHere, const std::string& why = "");

}  // namespace relayout
