// The stage steps the subcommands share (optimize runs them all in a row).
#pragma once

#include "outputs/Outputs.h"

#include "relayout/analysis/Analyze.h"
#include "relayout/core/Plan.h"
#include "relayout/instrument/Instrument.h"

#include <llvm/Support/Error.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace relayout {

// Checks that every source exists and is a file; errors name the first that is not.
llvm::Error checkSourcesExist(const std::vector<std::string>& sources);

// Instruments `sources` and stages DIR/NAME.cu and DIR/NAME.sites.json for each.
// Returns the staged site map paths, in source order.
llvm::Expected<std::vector<std::string>> stageInstrumented(const std::vector<std::string>& sources,
                                                           const std::string& buildDir,
                                                           const std::vector<std::string>& flags,
                                                           const InstrumentOptions& options, const std::string& outDir,
                                                           OutputSet& outputs, InstrumentResult* result);

// Where stageInstrumented puts the site map of a unit: beside its instrumented source.
std::string siteMapPathFor(const std::string& dir, const InstrumentedUnit& unit);

// Runs PROGRAM ARGS with RELAYOUT_PROFILE set, and checks that it wrote a readable profile.
// hw: also RELAYOUT_HW=1, so that the runtime records per-line SASS metrics (profile --hw).
llvm::Error runProfiled(const std::vector<std::string>& command, const std::string& profilePath, bool hw = false);

// Loads site maps and a profile and decides: in `mode` where given, else in model mode with the
// profile's trace and by the paper rule without one; `forced` puts that layout on every struct
// instead, the predictions still reported; `ptx` names PTX files of the original sources for the
// model (analysis/Ptx.h).
llvm::Expected<Analysis> analyzeFiles(const std::vector<std::string>& siteMapPaths, const std::string& profilePath,
                                      std::optional<Layout> forced = std::nullopt,
                                      const std::vector<std::string>& ptx = {},
                                      std::optional<AnalyzeMode> mode = std::nullopt);

// "paper" or "model" as an AnalyzeMode, nothing for ""; an error naming `option` otherwise.
llvm::Expected<std::optional<AnalyzeMode>> modeNamed(const std::string& name, const std::string& option);

// "aos", "soa" or "clustered" as a Layout; an error naming `option` otherwise.
llvm::Expected<Layout> layoutNamed(const std::string& name, const std::string& option);

// Overrides every struct in `plan` with `layout` (aos or soa), for experiments.
llvm::Error forceLayout(Plan& plan, const std::string& layout);

// Where rewritten sources go. Folder (-o): every file into one folder, refused when they lie in
// several; OutRoot (--out-root): each file at its path relative to inRoot (default: the common
// folder of the files) under dir; Diff: a unified diff on stdout; InPlace: over the files
// themselves (symbolic links followed), keeping FILE.orig.
enum class RewriteOutput { Folder, OutRoot, Diff, InPlace };
struct RewriteDestination {
  RewriteOutput mode = RewriteOutput::OutRoot;
  std::string dir;
  std::string inRoot;
};

// Rewrites `sources` by `plan` (refusing sources the plan was not made for) and stages the
// results for `destination`: every given source and every header that changed. Prints (when
// `announce`) one line per planned struct (applied, or why not) and fills `outcomes` with the same.
llvm::Error rewriteAndStage(const Plan& plan, const std::string& planPath, const std::vector<std::string>& sources,
                            const std::string& buildDir, const std::vector<std::string>& flags,
                            const RewriteDestination& destination, OutputSet& outputs,
                            std::map<std::string, RewriteOutcome>* outcomes = nullptr, bool announce = true);

}  // namespace relayout
