// Runs the applications of a manifest through `relayout optimize`, one per GPU at a time, each in
// its own process group with its own time limit, and keeps what each ended with so that a second
// run resumes where the first stopped.
#pragma once

#include "batch/Manifest.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace relayout::batch {

// What each application's `relayout optimize` does: everything (where the GPU is), or one side of
// a split between a machine with the compiler and a GPU machine without it (Stages.h).
enum class Stage {
  Optimize,       // profile, decide, rewrite, verify
  BuildProfiled,  // --build-only: the instrumented program, to run where the GPU is
  FromProfile,    // --recorded-profile (the profile that run wrote) --verify: decide, rewrite, build the pair
};

struct RunOptions {
  std::string outDir;          // absolute: apps/NAME (optimize's folder), logs/, state/, summary.*
  std::string relayout;        // this executable, to run `relayout optimize`
  unsigned jobs = 1;           // applications at once
  int gpus = 0;                // GPUs visible; each application started gets a free one (CUDA_VISIBLE_DEVICES)
  bool force = false;          // run finished applications again
  bool retry = false;          // run failed and timed-out applications again
  std::set<std::string> only;  // when not empty, just these
  Stage stage = Stage::Optimize;
  std::string profiles;                      // Stage::FromProfile: PROFILES/NAME/profile.json for each application
  std::vector<std::string> optimizeOptions;  // given to every application's optimize (--candidates...)
};

// What one application ended with; the names are those of state/NAME.json and the summary.
// Verified: a candidate rewrite printed what the original printed and ran faster, and is applied;
// Untouched: none ran faster (or nothing to measure), the sources stay as they are;
// Slower: the best candidate that printed the same ran slower, the sources stay as they are.
enum class Status { NotRun, Verified, Untouched, Slower, Rewritten, Rejected, Failed, Timeout, Stopped, Built };
const char* statusName(Status status);
// What a status means, in a line: the summary's legend.
const char* statusMeaning(Status status);
// Whether an application with this status ended as relayout promises (applied faster, or untouched).
bool succeeded(Status status);

// Returns the exit status: 0 when every selected application succeeded (verified or untouched; for
// Stage::BuildProfiled: built; for Stage::FromProfile: rewritten or untouched), 1 otherwise, 130 when interrupted
// (SIGINT/SIGTERM: the running applications are stopped first).
int runBatch(const Manifest& manifest, const RunOptions& options);

// What an application ended with in OUT (state/NAME.json), and its status's name.
Status recordedStatus(const std::string& outDir, const std::string& name);
void recordStatus(const std::string& outDir, const App& app, Status status, const std::string& why);
// The status that an application's measured candidates (OUT/apps/NAME/selection.json) give, and its
// message; nothing when the folder has no selection.
std::optional<std::pair<Status, std::string>> statusFromSelection(const std::string& appDir);
// Rewrites OUT/summary.{md,json} from the applications' states and folders.
void writeSummary(const Manifest& manifest, const std::string& outDir, int gpus);

}  // namespace relayout::batch
