// Runs the applications of a manifest through `relayout optimize`, one per GPU at a time, each in
// its own process group with its own time limit, and keeps what each ended with so that a second
// run resumes where the first stopped.
#pragma once

#include "Manifest.h"

#include <set>
#include <string>

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
  std::string profiles;  // Stage::FromProfile: PROFILES/NAME/profile.json for each application
};

// What one application ended with; the names are those of state/NAME.json and the summary.
enum class Status { NotRun, Verified, Rewritten, Rejected, Failed, Timeout, Stopped, Built };
const char* statusName(Status status);

// Returns the exit status: 0 when every selected application verified (for Stage::BuildProfiled:
// built), 1 otherwise, 130 when interrupted (SIGINT/SIGTERM: the running applications are stopped
// first).
int runBatch(const Manifest& manifest, const RunOptions& options);

// What an application ended with in OUT (state/NAME.json), and its status's name.
Status recordedStatus(const std::string& outDir, const std::string& name);
void recordStatus(const std::string& outDir, const App& app, Status status, const std::string& why);
// Rewrites OUT/summary.{md,json} from the applications' states and folders.
void writeSummary(const Manifest& manifest, const std::string& outDir, int gpus);

}  // namespace relayout::batch
