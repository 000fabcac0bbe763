#include "commands/SamplingFlags.h"

namespace relayout {

namespace cl = llvm::cl;

// Defaults chosen from the sweep over the bundled samples (docs/results/overhead-h100.md): one
// block in 8 of the first launch of each kernel kept the run closest to a plain one among the
// settings measured (1.47x), and chose the same layouts as classifying everything. Executions
// sampled at random cost more per access than they saved there, so every execution of a chosen
// block counts.
constexpr unsigned kDefaultBlockPeriod = 8, kDefaultLaunches = 1, kDefaultExecPeriod = 1;
// Adaptive sampling (docs/results/overhead-h100.md): a warp's first 16 hook executions at full
// rate, then ever fewer, weighted (256 cost 1.66x on the corpus, 16 cost 1.35x, with the same
// picks); at least 16 blocks of a small grid and about 256 of a large one, spread over it (the
// classifying warps of a short kernel are its slowest). No time budget: with one,
// the picks of two samples and of several corpus programs moved away from full profiling's.
constexpr unsigned kDefaultFullExecutions = 16, kDefaultExecBudget = 0, kDefaultMinBlocks = 16, kDefaultMaxBlocks = 256;
// The classifying blocks in the first quarter of each grid: a launch waits for its last classifying
// block, which spread to the grid's end starts as the plain blocks finish (docs/results/
// overhead-h100.md, "Classifying blocks in the grid's front").
constexpr unsigned kDefaultBlockFront = 4;
// Sharing first executions among a launch's warps: 64 took the corpus from 1.28x to 1.19x and the
// worst program from 3.0x to 2.0x (docs/results/overhead-h100.md, "Shared first executions").
// Without execution sampling there are no first executions to share, so it is dropped quietly
// unless asked for.
constexpr unsigned kDefaultSiteWarps = 64;
// Long loops hooked for a prefix of about 64 iterations per warp: a warp that classifies runs the
// rest of a long counted loop as written, where each iteration's hooks made one-wave kernels with
// long loops several times slower (docs/results/overhead-h100.md, "Loop prefixes").
constexpr unsigned kDefaultLoopPrefix = 64;
// A counted loop's prefix can be shorter, its counts standing for the trip count within 1/(2N):
// 16 took the ray tracer from 1.75x to 1.53x and kmeans from 1.09x to 0.94x with the same picks
// (docs/results/overhead-h100.md, "Shorter prefixes for counted loops").
constexpr unsigned kDefaultCountedPrefix = 16;
// The runtime's RELAYOUT_MAX_CHECKPOINTS (rt_common.h; rt.cuh refuses more with a static_assert).
constexpr unsigned kMaxCheckpointLaunches = 8;

SamplingFlags::SamplingFlags(cl::SubCommand& command)
    : blocks_("sample-blocks", cl::desc("Classify warps in one thread block of every N (1: all)"), cl::value_desc("N"),
              cl::init(kDefaultBlockPeriod), cl::sub(command)),
      launches_("sample-launches",
                cl::desc("Classify only in the first N launches of each kernel (0: all), and in up to 3 later "
                         "ones whose grid has at least 4x the blocks of any classified before (a program that "
                         "checks itself on a small problem first); the profile records the blocks each kernel "
                         "ran and classified, and the analysis scales counts back up"),
                cl::value_desc("N"), cl::init(kDefaultLaunches), cl::sub(command)),
      checkpoints_("checkpoint-launches",
                   cl::desc("With --sample-launches N, also classify in the 8N-th, 16N-th, ... launch of each "
                            "kernel, K of them at most (up to 8), each weighted for the launches since the one "
                            "before: for a kernel whose work changes over the run, at the cost of K more "
                            "classifying launches (default 0)"),
                   cl::value_desc("K"), cl::init(0), cl::sub(command)),
      executions_("sample-executions",
                  cl::desc("Classify about one in N executions of each access by a warp, drawn at random "
                           "(a power of two; 1: all); bounds the cost of kernels whose blocks all run at once"),
                  cl::value_desc("N"), cl::init(kDefaultExecPeriod), cl::sub(command)),
      fullExecutions_("full-executions",
                      cl::desc("Each warp of a classifying block classifies its first N hook executions, then "
                               "about one in 2, 4, ... 1024, each counted with its weight (0: all of them, unless "
                               "--exec-budget limits them)"),
                      cl::value_desc("N"), cl::init(kDefaultFullExecutions), cl::sub(command)),
      execBudget_("exec-budget",
                  cl::desc("Each warp of a classifying block spends at most about PERCENT of its time "
                           "classifying, whatever --full-executions allows: a kernel whose blocks all run at "
                           "once then takes about 1/(1-PERCENT/100) times as long, but fewer executions are "
                           "classified (0: no time limit)"),
                  cl::value_desc("PERCENT"), cl::init(kDefaultExecBudget), cl::sub(command)),
      minBlocks_("min-blocks",
                 cl::desc("A grid too small for --sample-blocks to give N classifying blocks classifies one "
                          "block in fewer, a power of two (N to 2N blocks, or all)"),
                 cl::value_desc("N"), cl::init(kDefaultMinBlocks), cl::sub(command)),
      maxBlocks_("max-blocks",
                 cl::desc("A launch classifies N blocks at most, N/2 or more (one block in a power of two; 0: no "
                          "cap)"),
                 cl::value_desc("N"), cl::init(kDefaultMaxBlocks), cl::sub(command)),
      blockFront_("block-front",
                  cl::desc("A launch's classifying blocks come from about the first 1/F of its grid (one in every "
                           "period/F blocks from its start, as many as before), where they run beside its plain "
                           "blocks rather than after them (default 4; 1: spread over the whole grid, for a kernel "
                           "whose later blocks run other code)"),
                  cl::value_desc("F"), cl::init(kDefaultBlockFront), cl::sub(command)),
      siteWarps_("site-warps",
                 cl::desc("A launch with at least 2N classifying warps shares out its hooks' first executions: "
                          "each warp classifies those of one hook in 2, 4, ... 16 and starts at that period, at that "
                          "weight, so that about N warps classify each hook's first execution (default 64; 0: "
                          "every warp classifies every first execution; needs execution sampling)"),
                 cl::value_desc("N"), cl::init(kDefaultSiteWarps), cl::sub(command)),
      drawIterations_("draw-iterations",
                      cl::desc("Experimental: draw the iterations of each innermost loop with hooks whole: a "
                               "classifying warp draws once per iteration from its period, and in an iteration it "
                               "did not draw every hook, in the body and in what it calls, skips at once (a loop's "
                               "first iteration in a warp is drawn, as a hook's first execution is). Cheaper in "
                               "long loops, but where a loop's lanes run different numbers of iterations it counts "
                               "the loop's warp executions higher still than per-execution draws do "
                               "(docs/results/overhead-h100.md); default false"),
                      cl::init(false), cl::sub(command)),
      loopPrefix_("loop-prefix",
                  cl::desc("A classifying warp runs an innermost `for` or `while` loop hooked in its first N "
                           "iterations, then in every 2nd of the next 2N, every 4th of the next 4N, ..., each "
                           "weighted for the iterations it stands for; a counted loop as --counted-prefix says "
                           "(default 64; 0: every iteration of every loop hooked; needs execution sampling; not "
                           "with --draw-iterations)"),
                  cl::value_desc("N"), cl::init(kDefaultLoopPrefix), cl::sub(command)),
      countedPrefix_("counted-prefix",
                     cl::desc("A classifying warp runs an innermost counted loop (`for (i = A; i < B; i += S)`, "
                              "B and S unchanged by the body) of at least 2N iterations hooked for about its "
                              "first N, each counted with the weight of the trip count over them, and the rest as "
                              "written (default 16; 0: every iteration hooked; needs --loop-prefix above 0)"),
                     cl::value_desc("N"), cl::init(kDefaultCountedPrefix), cl::sub(command)),
      plainClones_("plain-clones", cl::desc("--plain-clones=false is --no-plain-clones"), cl::init(true),
                   cl::Hidden, cl::sub(command)),
      noPlainClones_("no-plain-clones",
                     cl::desc("Run the instrumented code everywhere, also in the launches and blocks that classify "
                              "nothing (by default they run a plain copy of the original code), as a comparison"),
                     cl::sub(command)) {}

InstrumentOptions profilingDefaults() {
  InstrumentOptions options;
  options.blockPeriod = kDefaultBlockPeriod;
  options.sampleLaunches = kDefaultLaunches;
  options.execPeriod = kDefaultExecPeriod;
  options.fullExecutions = kDefaultFullExecutions;
  options.execBudget = kDefaultExecBudget;
  options.minBlocks = kDefaultMinBlocks;
  options.maxBlocks = kDefaultMaxBlocks;
  options.blockFront = kDefaultBlockFront;
  options.siteWarps = kDefaultSiteWarps;
  options.loopPrefix = kDefaultLoopPrefix;
  options.countedPrefix = kDefaultCountedPrefix;
  options.traceCapacity = InstrumentOptions::kDefaultTraceCapacity;
  options.traceLaunches = 2;
  return options;
}

static llvm::Error usageError(const char* message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error SamplingFlags::apply(InstrumentOptions& options) const {
  if (blocks_ == 0) return usageError("--sample-blocks must be at least 1");
  if (executions_ == 0 || (executions_ & (executions_ - 1)) != 0)
    return usageError("--sample-executions must be a power of two (1, 2, 4, ...)");
  options.blockPeriod = blocks_;
  options.sampleLaunches = launches_;
  if (checkpoints_ > kMaxCheckpointLaunches) return usageError("--checkpoint-launches must be at most 8");
  if (checkpoints_ && !launches_)
    return usageError("--checkpoint-launches needs --sample-launches above 0 (0 classifies every launch)");
  options.checkpointLaunches = checkpoints_;
  options.execPeriod = executions_;
  if (minBlocks_ == 0) return usageError("--min-blocks must be at least 1");
  if (execBudget_ >= 100) return usageError("--exec-budget is a percentage of a warp's time, below 100");
  options.fullExecutions = fullExecutions_;
  options.execBudget = execBudget_;
  options.minBlocks = minBlocks_;
  options.maxBlocks = maxBlocks_;
  if (blockFront_ == 0) return usageError("--block-front must be at least 1");
  options.blockFront = blockFront_;
  const bool sampledExecutions = fullExecutions_ || execBudget_;
  if (siteWarps_ && !sampledExecutions && siteWarps_.getNumOccurrences())
    return usageError("--site-warps needs execution sampling: --full-executions or --exec-budget above 0");
  options.siteWarps = sampledExecutions ? unsigned(siteWarps_) : 0;
  if (drawIterations_ && !sampledExecutions && drawIterations_.getNumOccurrences())
    return usageError("--draw-iterations needs execution sampling: --full-executions or --exec-budget above 0");
  options.drawIterations = sampledExecutions && drawIterations_;
  if (loopPrefix_ && !sampledExecutions && loopPrefix_.getNumOccurrences())
    return usageError("--loop-prefix needs execution sampling: --full-executions or --exec-budget above 0");
  if (loopPrefix_ && options.drawIterations && loopPrefix_.getNumOccurrences())
    return usageError("--loop-prefix and --draw-iterations exclude each other: pass --loop-prefix 0");
  options.loopPrefix = sampledExecutions && !options.drawIterations ? unsigned(loopPrefix_) : 0;
  if (!options.loopPrefix && countedPrefix_.getNumOccurrences())
    return usageError(
        "--counted-prefix needs loop prefixes: --loop-prefix above 0, execution sampling, no --draw-iterations");
  options.countedPrefix = options.loopPrefix ? unsigned(countedPrefix_) : 0;
  options.plainClones = plainClones_ && !noPlainClones_;
  return llvm::Error::success();
}

}  // namespace relayout
