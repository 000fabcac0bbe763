// Runs the applications of a manifest through `relayout optimize`, one per GPU at a time, each in
// its own process group with its own time limit, and keeps what each ended with so that a second
// run resumes where the first stopped.
#pragma once

#include "Manifest.h"

#include <set>
#include <string>

namespace relayout::batch {

struct RunOptions {
  std::string outDir;          // absolute: apps/NAME (optimize's folder), logs/, state/, summary.*
  std::string relayout;        // this executable, to run `relayout optimize`
  unsigned jobs = 1;           // applications at once
  int gpus = 0;                // GPUs visible; application k of the running ones gets GPU k % gpus
  bool force = false;          // run finished applications again
  bool retry = false;          // run failed and timed-out applications again
  std::set<std::string> only;  // when not empty, just these
};

// What one application ended with; the names are those of state/NAME.json and the summary.
enum class Status { NotRun, Verified, Rewritten, Rejected, Failed, Timeout, Stopped };
const char* statusName(Status status);

// Returns the exit status: 0 when every selected application verified, 1 otherwise, 130 when
// interrupted (SIGINT/SIGTERM: the running applications are stopped first).
int runBatch(const Manifest& manifest, const RunOptions& options);

}  // namespace relayout::batch
