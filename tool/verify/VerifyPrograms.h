// Running two built programs, the original and the rewritten one, with the same arguments in the
// same folder, comparing their outputs and timing them: what `relayout optimize --verify` does after
// building them, and all that `relayout-verify` does (VerifyMain.cpp; for the GPU machines, which
// have nvcc but no Clang: this part needs only LLVM's Support library, linked statically there).
// The judgement itself is Verify.h.
#pragma once

#include "verify/Verify.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout::verify {

// The verification options, as both tools take them (--compare, --rtol, --atol, --repeat,
// --ignore-lines).
struct Options {
  std::vector<std::string> compare;  // files the programs write, compared after standard output
  double rtol = 0, atol = 0;
  bool rtolGiven = false, atolGiven = false;  // either one: numbers compare within the tolerance
  unsigned repeat = 5;
  bool repeatGiven = false;
  std::vector<std::string> ignoreLines;
  // The exit status says "not faster" (4) when outputs are equal but no candidate runs faster than
  // the original beyond the runs' spread.
  bool requireSpeedup = false;

  // Whether the values can be used (tolerances finite and >= 0, --repeat >= 1, the expressions
  // valid, the --compare files kept under distinct names).
  llvm::Error check() const;
  Tolerance tolerance() const;
  // "standard output", then each --compare file.
  std::vector<std::string> compared() const;
  // The options given, as command-line arguments (to repeat them in another command).
  std::vector<std::string> arguments() const;
};

// A candidate's name: letters, digits, '.', '_' and '-', not "original" (it names a folder of runs).
llvm::Error checkCandidateName(const std::string& name);

// The options above as command-line options of a subcommand (optimize's, or relayout-verify's
// top level): one definition, one help text, for both tools.
class ComparisonFlags {
 public:
  explicit ComparisonFlags(llvm::cl::SubCommand& command,
                           llvm::cl::OptionCategory& category = llvm::cl::getGeneralCategory());
  Options options() const;
  // The options, for "given with --build-only" checks.
  std::vector<const llvm::cl::Option*> all() const;

 private:
  llvm::cl::list<std::string> compare_;
  llvm::cl::opt<double> rtol_;
  llvm::cl::opt<double> atol_;
  llvm::cl::opt<unsigned> repeat_;
  llvm::cl::list<std::string> ignore_;
  llvm::cl::opt<bool> requireSpeedup_;
};

// A program run against the original: the rewritten one ("rewritten"), or one of several candidate
// rewrites, each under its own name.
struct NamedProgram {
  std::string name;
  std::string program;
};

// The programs to run and where their runs are kept.
struct Programs {
  std::string original;
  std::vector<NamedProgram> candidates;
  std::vector<std::string> runArgs;  // the same for every run of every program
  // Gets original/run-K/ and NAME/run-K/ per candidate (stdout, stderr, kernel-time.json, the
  // --compare files) and verify.json.
  std::string dir;
  std::string kernelTimeLibrary;  // librelayout_kerneltime.so, "" when kernel times are not measured
};

// The tool that speaks on standard error: "relayout" or "relayout-verify".
void setToolName(const std::string& name);
void reportError(const std::string& message);
void reportWarning(const std::string& message);
void reportNote(const std::string& message);

// librelayout_kerneltime.so: `given` when not empty, else $RELAYOUT_KERNELTIME_LIBRARY, else
// PREFIX/lib/ beside the running executable's folder PREFIX/bin (a build tree has BUILD/lib beside
// BUILD/tool); "" when none is there.
std::string findKernelTimeLibrary(const std::string& given = "");

// Fails when a --compare FILE's keeping place FILE.relayout-verify-saved is taken already (an
// interrupted verification left the user's copy there), so that a caller stops before building.
llvm::Error checkNothingKeptAside(const std::vector<std::string>& compare);

// What the runs found, and the end of a failed run's standard error for the message.
struct RunResult {
  Outcome outcome;
  std::string failedStderr;
};

// Runs every program options.repeat times, interleaved (original 1, then each candidate's run 1,
// their order turning by one each round, original 2, ...), in the current folder with standard input
// from /dev/null. A candidate whose outputs differ from the original's runs no further; the runs stop
// when none is left, or when the original fails.
// The --compare files that are there before are kept aside and put back after (on Ctrl-C too).
// Earlier runs' folders under programs.dir are removed first. An error: a folder or file could not
// be made or moved.
llvm::Expected<RunResult> runPrograms(const Programs& programs, const Options& options);

// Writes programs.dir/verify.json (its `result`: `result`), prints the table on standard output
// and the verdict on standard error, one line per candidate when there are several; returns the
// exit status: exitCode(outcome.verdict), or 4 under --require-speedup when the outputs are equal
// but no candidate is faster.
int reportOutcome(const RunResult& run, const Programs& programs, const Options& options, const std::string& result);

}  // namespace relayout::verify
