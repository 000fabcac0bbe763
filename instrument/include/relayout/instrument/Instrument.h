// instrument: rewrites CUDA sources so that every struct-field access in device code reports
// itself to the runtime, and describes each access site in a site map.
#pragma once

#include "relayout/core/SiteMap.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

struct InstrumentOptions {
  // Classify warps in one thread block of every `blockPeriod` (1 = every block).
  unsigned blockPeriod = 1;
  // Classify only in the first `sampleLaunches` launches of each kernel; 0 = all.
  unsigned sampleLaunches = 0;
  // With sampleLaunches, also classify that many checkpoint launches (rt_common.h), each weighted.
  unsigned checkpointLaunches = 0;
  // Classify about one warp-level execution of each hook in `execPeriod` (a power of two).
  unsigned execPeriod = 1;
  // Execution sampling (rt.cuh), its counts weighted: each warp of a classifying block classifies
  // its first `fullExecutions` hook executions, then ever fewer; and, with `execBudget`, spends
  // about that percent of its time classifying. Both 0 = every execution.
  unsigned fullExecutions = 0;
  unsigned execBudget = 0;
  // Small grids classify at least `minBlocks` blocks; no kernel classifies more than `maxBlocks`
  // (0 = no cap).
  unsigned minBlocks = 1;
  unsigned maxBlocks = 0;
  // The classifying blocks sit in about the first 1/`blockFront` of each grid (rt_common.h,
  // __rl_grid_block_classifies); 1 = spread over the whole grid.
  unsigned blockFront = 1;
  // A launch with at least twice `siteWarps` classifying warps shares out its hooks' first
  // executions, so that about `siteWarps` warps classify each one, at its weight (0 = every warp
  // classifies every first execution). Needs execution sampling (fullExecutions or execBudget).
  unsigned siteWarps = 0;
  // Innermost loops with hooks are drawn per iteration: in an iteration a warp does not draw, its
  // hooks skip at once (IterationDraws, FileUnion.h). Needs execution sampling. Experimental.
  bool drawIterations = false;
  // Long loops run hooked in part (LoopPrefixes, FileUnion.h; rt.cuh, __rl_prefix and __rl_thin):
  // an innermost counted loop whose body calls no hooked code runs hooked for about its first
  // `countedPrefix` iterations in a warp, weighted by its trip count over them, and runs a plain
  // copy of its body for the rest; another innermost loop runs hooked in its first `loopPrefix`
  // iterations, then in every 2nd, 4th, ... 0 = every iteration hooked (`countedPrefix` 0: every
  // iteration of a counted loop). Needs execution sampling; --draw-iterations replaces it.
  unsigned loopPrefix = 0;
  unsigned countedPrefix = 0;
  // Trace mode (docs/formats.md, "Trace"): records per unit, 0 = no trace; and the first
  // launches of each kernel traced, 0 = all.
  unsigned long long traceCapacity = 0;
  unsigned traceLaunches = 2;
  // Accesses each traced warp records (rt.cuh, RELAYOUT_TRACE_DEPTH); a kernel's share of the
  // buffer goes to as many warps as it holds at this depth.
  unsigned traceDepth = kDefaultTraceDepth;
  // Plain clones: launches and blocks that classify nothing run a copy of the original code.
  bool plainClones = true;
  // What `instrument --trace` and `optimize` use: 32 MiB of records on the GPU per source file,
  // room for each kernel's share to hold several warps' long runs of accesses.
  static constexpr unsigned long long kDefaultTraceCapacity = 1ull << 20;
  // 64 rather than 256: at 64 every sample and corpus program got the layouts it got at 256, and
  // when each traced access was a classifier call a one-wave kernel waited for its traced warps
  // (broadphase 2.05x -> 1.68x). At 32, cloth's springs and sssp_edges' vertex states got other
  // model-mode layouts in every run (docs/results/overhead-h100.md, "Trace depth" and "trace depth
  // 32 over the whole corpus").
  static constexpr unsigned kDefaultTraceDepth = 64;
  // Clang's own warnings on the sources are printed only when the parse fails (the nvcc wrapper:
  // nvcc gives its own; relayout's warnings are printed either way).
  bool holdClangWarnings = false;
  // Folders whose files are the project's own, besides those of the sources and of their
  // -I/-iquote flags (e.g. every compile database entry's folder).
  std::vector<std::string> projectFolders;
};

struct InstrumentedUnit {
  std::string sourcePath;        // as given
  std::string relativePath;      // from InstrumentResult::root: where its instrumented copy goes
  std::string instrumentedText;  // compiles with nvcc -I <runtime/include> beside its instrumented headers
  SiteMap siteMap;
};

// A project header (or a .cu file another includes) that some unit reads.
struct InstrumentedHeader {
  std::string path;          // absolute
  std::string relativePath;  // from InstrumentResult::root
  std::string text;          // instrumented, or the original with a #line when it has no hook
  bool instrumented = false;
};

struct InstrumentResult {
  // The common folder of the sources and the headers: outputs keep their paths relative to it,
  // so that the instrumented tree resolves `#include "../include/p.h"` as the original does.
  std::string root;
  std::vector<InstrumentedUnit> units;  // in the order given
  std::vector<InstrumentedHeader> headers;
};

// Parses each source with the flags `db` gives and instruments it, with the project headers the
// sources include (files under the project's folders: those of the sources, of their -I/-iquote
// flags and InstrumentOptions::projectFolders; never system, CUDA or compiler headers). Clang's own
// diagnostics go to stderr; if any source fails to compile the result is an error. Accesses that
// cannot be instrumented are reported as warnings with their location.
llvm::Expected<InstrumentResult> instrumentSources(const std::vector<std::string>& sources,
                                                   const clang::tooling::CompilationDatabase& db,
                                                   const InstrumentOptions& options);

}  // namespace relayout
