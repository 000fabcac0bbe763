// Device hooks of relayout's profiling runtime, included once at the top of each instrumented
// translation unit after the RELAYOUT_* macros (see instrument/). Each field access EXPR becomes
// (*__rl_site(ID, &(EXPR))): the warp's access is classified on the GPU into per-site counters
// (docs/formats.md, "Counter columns"); the reference definition is warp_classify.h.
#pragma once

#if !defined(RELAYOUT_UNIT_SOURCE) || !defined(RELAYOUT_UNIT_SHA256) || !defined(RELAYOUT_NUM_SITES)
#error "define RELAYOUT_UNIT_SOURCE, RELAYOUT_UNIT_SHA256 and RELAYOUT_NUM_SITES before rt.cuh"
#endif
#ifndef RELAYOUT_BLOCK_PERIOD
#define RELAYOUT_BLOCK_PERIOD 1
#endif
// A measurement of what the hooks cost, not a profile (scripts/bench/overhead.py's *nocall* and
// *nohook* variants, given with -D when the instrumented unit is built): 1 keeps each hook's inline
// draw but never calls the classifier; 2 leaves no hook in the code at all. The profile then counts
// nothing; the kernel times say what the draws, the calls and the classifier each add.
#ifndef RELAYOUT_ABLATE
#define RELAYOUT_ABLATE 0
#endif
// Units instrumented before loop counters, kernel ids or the trace define none of these.
#ifndef RELAYOUT_NUM_LOOPS
#define RELAYOUT_NUM_LOOPS 0
#endif
#ifndef RELAYOUT_NUM_KERNELS
#define RELAYOUT_NUM_KERNELS 0
#endif
// The unit's functions (the site map's functions[]): their count here; their names, token hashes
// and each site's function index in RELAYOUT_FUNCTION_NAMES, RELAYOUT_FUNCTION_HASHES and
// RELAYOUT_SITE_FUNCTIONS. Units instrumented before function hashes define none.
#ifndef RELAYOUT_NUM_FUNCTIONS
#define RELAYOUT_NUM_FUNCTIONS 0
#endif
// Records in this unit's trace buffer; 0: no trace (docs/formats.md, "Trace").
#ifndef RELAYOUT_TRACE_CAPACITY
#define RELAYOUT_TRACE_CAPACITY 0
#endif
// The first launches of each kernel that are traced; 0: all.
#ifndef RELAYOUT_TRACE_LAUNCHES
#define RELAYOUT_TRACE_LAUNCHES 0
#endif
// Classify only in the first launches of each kernel (0: every launch). The profile records, per
// kernel, the blocks run and the blocks classified, so the analysis scales counts back up.
#ifndef RELAYOUT_SAMPLE_LAUNCHES
#define RELAYOUT_SAMPLE_LAUNCHES 0
#endif
// With RELAYOUT_SAMPLE_LAUNCHES, also classify in that many checkpoint launches, the 8N-th,
// 16N-th, ..., each weighted for the launches since the one before (rt_common.h).
#ifndef RELAYOUT_CHECKPOINT_LAUNCHES
#define RELAYOUT_CHECKPOINT_LAUNCHES 0
#endif
// Classify about one in RELAYOUT_EXEC_PERIOD executions of each hook by a warp (a power of two;
// 1: all), chosen by a per-warp pseudo-random sequence so that loops do not alias with it. Block
// sampling cannot shorten a kernel whose blocks all run in one wave, where the classified blocks
// are the critical path; this can. The analysis multiplies the counts back.
#ifndef RELAYOUT_EXEC_PERIOD
#define RELAYOUT_EXEC_PERIOD 1
#endif
#if (RELAYOUT_EXEC_PERIOD) & ((RELAYOUT_EXEC_PERIOD) - 1)
#error "RELAYOUT_EXEC_PERIOD must be a power of two"
#endif
// Execution sampling in a classifying block. A hook calls the classifier when a hash of the SM's
// clock falls below its warp's gate; the classifier keeps one execution in 2^s and adds its counts
// times 2^s, so the counters still estimate every execution (without bias: s is fixed before
// each draw). After each call the warp's shift s becomes the larger of two rules:
// - the count rule: a warp's first RELAYOUT_FULL_EXECS hook executions at full rate, then the
//   period doubles every RELAYOUT_FULL_EXECS executions, up to 2^RELAYOUT_MAX_EXEC_SHIFT, so that a
//   warp running a long loop (an n-body force sum) no longer classifies all of it;
// - the time rule (RELAYOUT_EXEC_BUDGET > 0): a warp spends about RELAYOUT_EXEC_BUDGET percent of
//   its time classifying and tracing, after a first RELAYOUT_EXEC_CREDIT cycles; the shift is set
//   from what the last call cost and how long the user's code ran per execution since. The
//   slowest classifying warp, which sets the time of a kernel whose blocks all run at once, then
//   runs about 1 / (1 - budget) times as long as the original.
// Neither (both 0): every execution.
#ifndef RELAYOUT_FULL_EXECS
#define RELAYOUT_FULL_EXECS 0
#endif
#ifndef RELAYOUT_MAX_EXEC_SHIFT
#define RELAYOUT_MAX_EXEC_SHIFT 10
#endif
#ifndef RELAYOUT_EXEC_BUDGET
#define RELAYOUT_EXEC_BUDGET 0
#endif
#if (RELAYOUT_EXEC_BUDGET) < 0 || (RELAYOUT_EXEC_BUDGET) >= 100
#error "RELAYOUT_EXEC_BUDGET is a percentage of a warp's time, below 100"
#endif
#ifndef RELAYOUT_EXEC_CREDIT
#define RELAYOUT_EXEC_CREDIT 4096
#endif
#if (RELAYOUT_FULL_EXECS) > 0 || (RELAYOUT_EXEC_BUDGET) > 0
#define RELAYOUT_EXEC_SAMPLING_ 1
#else
#define RELAYOUT_EXEC_SAMPLING_ 0
#endif
#if (RELAYOUT_EXEC_BUDGET) > 0
#define RELAYOUT_TIME_RULE_ 1
#else
#define RELAYOUT_TIME_RULE_ 0
#endif
// A grid with fewer than RELAYOUT_MIN_BLOCKS * RELAYOUT_BLOCK_PERIOD blocks classifies one block in
// fewer, so that a small grid still gives RELAYOUT_MIN_BLOCKS (or all of its blocks); a grid with
// more than RELAYOUT_MAX_BLOCKS * RELAYOUT_BLOCK_PERIOD classifies one block in more, so that it
// classifies about RELAYOUT_MAX_BLOCKS (0: no cap). The profile records blocks
// run and classified per kernel, so the analysis scales either back.
#ifndef RELAYOUT_MIN_BLOCKS
#define RELAYOUT_MIN_BLOCKS 1
#endif
#ifndef RELAYOUT_MAX_BLOCKS
#define RELAYOUT_MAX_BLOCKS 0
#endif
// The classifying blocks sit in about the first 1 / RELAYOUT_BLOCK_FRONT of the grid, where they
// run beside its plain blocks (rt_common.h, __rl_grid_block_classifies); units instrumented before
// it spread them over the whole grid.
#ifndef RELAYOUT_BLOCK_FRONT
#define RELAYOUT_BLOCK_FRONT 1
#endif
// Shared work in a launch with many classifying warps (with execution sampling): a launch whose
// classifying warps number at least 2 * RELAYOUT_SITE_WARPS has each of them start at period 2^k
// rather than 1 and classify the first execution of one hook id in 2^k (by id modulo 32, picked
// by a hash of the warp's index), both at weight 2^k, so that about RELAYOUT_SITE_WARPS warps
// classify each hook's first executions, up to k = RELAYOUT_MAX_SITE_SPLIT. A short kernel lasts
// as long as its slowest warp, and a warp that classifies every hook's first execution and its
// first RELAYOUT_FULL_EXECS executions at full rate makes a classifier call for about every hook
// of the kernel (0: every warp does, as before).
#ifndef RELAYOUT_SITE_WARPS
#define RELAYOUT_SITE_WARPS 0
#endif
#ifndef RELAYOUT_MAX_SITE_SPLIT
#define RELAYOUT_MAX_SITE_SPLIT 4
#endif
#if (RELAYOUT_MAX_SITE_SPLIT) < 0 || (RELAYOUT_MAX_SITE_SPLIT) > 5
#error "RELAYOUT_MAX_SITE_SPLIT is the log2 of a period of hook ids modulo 32, at most 5"
#endif
// Innermost loops drawn per iteration (__rl_iteration, --draw-iterations, an experiment): in an
// iteration the warp does not draw, every hook skips at once; the hooks of what the body calls
// also read the warp's draw in force. Without execution sampling every iteration runs hooked.
#ifndef RELAYOUT_DRAW_ITERATIONS
#define RELAYOUT_DRAW_ITERATIONS 0
#endif
#if RELAYOUT_EXEC_SAMPLING_ && RELAYOUT_DRAW_ITERATIONS
#define RELAYOUT_ITERATION_DRAWS_ 1
#else
#define RELAYOUT_ITERATION_DRAWS_ 0
#endif
// Long loops hooked for a prefix (__rl_prefix, __rl_thin, --loop-prefix): a classifying warp runs
// about its first RELAYOUT_LOOP_PREFIX iterations of an innermost counted loop hooked and the rest
// in a plain copy, the prefix's counts weighted by the trip count over its length; another loop
// hooked in its first RELAYOUT_LOOP_PREFIX iterations, then in every 2nd, 4th, ... iteration for
// RELAYOUT_LOOP_PREFIX each, weighted by the stride. 0: every iteration hooked.
#ifndef RELAYOUT_LOOP_PREFIX
#define RELAYOUT_LOOP_PREFIX 0
#endif
// An innermost counted loop's prefix (__rl_prefix, --counted-prefix; 0: every iteration hooked): its
// counts stand for the warp's longest trip count within 1 / (2 * RELAYOUT_COUNTED_PREFIX), so it
// can be shorter than a thinned loop's, whose counts may be over by a stride. Units instrumented
// before it had a flag of its own take RELAYOUT_LOOP_PREFIX.
#ifndef RELAYOUT_COUNTED_PREFIX
#define RELAYOUT_COUNTED_PREFIX RELAYOUT_LOOP_PREFIX
#endif
#if RELAYOUT_EXEC_SAMPLING_ && (RELAYOUT_LOOP_PREFIX) > 0
#define RELAYOUT_LOOP_PREFIXES_ 1
#else
#define RELAYOUT_LOOP_PREFIXES_ 0
#endif
#if RELAYOUT_EXEC_SAMPLING_ && (RELAYOUT_SITE_WARPS) > 0
#define RELAYOUT_SITE_SPLIT_ 1
#else
#define RELAYOUT_SITE_SPLIT_ 0
#endif
// Each site's counters are kept in several copies picked by SM id, summed when fetched: with one
// copy the atomics contend (2.1x slower at block period 1 on an H200; 132 copies gain nothing
// over 32).
#ifndef RELAYOUT_COUNTER_STRIPES
#define RELAYOUT_COUNTER_STRIPES 32
#endif

#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "relayout's profiling hooks need compute capability 8.0 or newer (warp reductions): compile with -arch=sm_80 or a newer GPU"
#endif

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "relayout/rt_abi.h"
#include "relayout/rt_common.h"
#include "relayout/warp_classify.h"

static_assert((RELAYOUT_CHECKPOINT_LAUNCHES) <= (RELAYOUT_MAX_CHECKPOINTS),
              "relayout: at most RELAYOUT_MAX_CHECKPOINTS checkpoint launches");

#define RELAYOUT_SITE_ROWS_ ((RELAYOUT_NUM_SITES) > 0 ? (RELAYOUT_NUM_SITES) : 1)
#define RELAYOUT_LOOP_ROWS_ ((RELAYOUT_NUM_LOOPS) > 0 ? (RELAYOUT_NUM_LOOPS) : 1)
// Each site has a row per kernel id and one for callers that are not kernels of this unit.
#define RELAYOUT_KERNEL_ROWS_ ((RELAYOUT_NUM_KERNELS) + 1)
#define RELAYOUT_TRACE_ROWS_ ((RELAYOUT_TRACE_CAPACITY) > 0 ? (RELAYOUT_TRACE_CAPACITY) : 1)
#define RELAYOUT_TRACE_SLOTS_ ((RELAYOUT_TRACE_LAUNCHES) > 0 ? (RELAYOUT_TRACE_LAUNCHES) : 1)
#define RELAYOUT_LAUNCH_SLOTS_                                                                    \
  ((RELAYOUT_SAMPLE_LAUNCHES) > 0                                                                 \
       ? (RELAYOUT_SAMPLE_LAUNCHES) + (RELAYOUT_GROWTH_LAUNCHES) + (RELAYOUT_CHECKPOINT_LAUNCHES) \
       : 1)
// Launches are admitted per instantiation of a kernel template (the first launches of each), up to
// this many instantiations per kernel; further ones share the last row.
#define RELAYOUT_INSTANCE_ROWS_ 8

// Static: each translation unit has its own counters, registered under its own source hash.
static __device__ unsigned long long __rl_counters[(RELAYOUT_COUNTER_STRIPES) * RELAYOUT_SITE_ROWS_ *
                                                   RELAYOUT_KERNEL_ROWS_ * RELAYOUT_COUNTER_COLUMNS];
// The running kernel's id, stored by __rl_enter at the top of each kernel of this unit. Shared
// memory is per block and every thread of a block runs the same kernel, so a __device__ helper
// reads its caller here. No -rdc caller from another unit stores it: such calls may be counted
// under whatever id the block's shared memory held, clamped to the "unknown" row.
static __shared__ unsigned __rl_kernel_id;
// Per kernel row: thread blocks run, and thread blocks that classified (sampling's scale).
static __device__ unsigned long long __rl_kernel_blocks[RELAYOUT_KERNEL_ROWS_ * 2];
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
// Per kernel row, the grid ids (+1, 0 = free) of the launches admitted to classification: the
// first ones, then those whose grid grew, then the checkpoints (rt_common.h); and the most blocks
// of one of them.
static __device__ unsigned long long
    __rl_launch_grids[RELAYOUT_KERNEL_ROWS_ * RELAYOUT_INSTANCE_ROWS_ * RELAYOUT_LAUNCH_SLOTS_];
static __device__ unsigned long long __rl_launch_largest[RELAYOUT_KERNEL_ROWS_ * RELAYOUT_INSTANCE_ROWS_];
// Whether this block classifies: 0, else the weight of its launch's counts (a checkpoint's
// launches, rt_common.h; 1 for the others). Decided once per block by __rl_enter.
static __shared__ unsigned __rl_block_on;
#endif
#if (RELAYOUT_EXEC_PERIOD) > 1
// Per warp of the block (at most 32), the state of its sampling sequence; seeded by __rl_enter.
static __shared__ unsigned __rl_warp_seed[32];
#endif
#if RELAYOUT_EXEC_SAMPLING_ || (RELAYOUT_TRACE_CAPACITY) > 0
// The words the hooks read, per warp of the block (at most 32) in arrays at fixed offsets from the
// gates, so that a hook reaches them all from the one address of its warp's gate (an address per
// array, each in a register for the whole kernel, took ptxas over the register counts that keep
// occupancy), and per block after them (the trace finds the block's from the warp's index), few
// so that the kernel's shared memory grows little (a kilobyte more cost a block per SM to the
// options pricer's binomial kernel, and 1.25x became 1.64x). Execution sampling's gate (set by
// __rl_enter, kept by the classifier's first active lane): a hook calls the classifier when its
// clock hash is at most the gate, which stays open (all ones) while the warp traces so that each
// access reaches the trace (RELAYOUT_TRACE_PTX_), which then draws against the draws' own gate.
// The trace's (__rl_trace_open, then the hooks): the records the warp has taken in its region
// (bits 0-19) and the accesses it has recorded (bits 20-31), one word so that one atomic reserves
// both, RELAYOUT_TRACE_DEPTH accesses when it does not trace or has stopped; its region's first
// record; per block, where the records are, its kernel row's dropped count, its launch's grid id,
// its first warp's index in the grid, its kernel row and the records a region holds.
struct __rl_warp_words_t {
  unsigned gate[32];
#if (RELAYOUT_TRACE_CAPACITY) > 0
  unsigned drawGate[32];
  unsigned traceCursor[32];
  unsigned traceStart[32];
  unsigned long long traceRecords, traceDropped, traceGrid;
  unsigned traceWarps, traceRow, traceRoom;
#endif
};
static __shared__ __rl_warp_words_t __rl_warp_words;
#if (RELAYOUT_TRACE_CAPACITY) > 0
static_assert(offsetof(__rl_warp_words_t, drawGate) == 128 && offsetof(__rl_warp_words_t, traceCursor) == 256 &&
                  offsetof(__rl_warp_words_t, traceStart) == 384 && offsetof(__rl_warp_words_t, traceRecords) == 512 &&
                  offsetof(__rl_warp_words_t, traceDropped) == 520 && offsetof(__rl_warp_words_t, traceGrid) == 528 &&
                  offsetof(__rl_warp_words_t, traceWarps) == 536 && offsetof(__rl_warp_words_t, traceRow) == 540 &&
                  offsetof(__rl_warp_words_t, traceRoom) == 544,
              "RELAYOUT_TRACE_PTX_ reads the trace words at these offsets");
#endif
#endif
#if RELAYOUT_EXEC_SAMPLING_
// Per warp of the block (at most 32), its sampling state besides the gate: the shift s of the
// period 2^s.
static __shared__ unsigned char __rl_warp_shift[32];
static __shared__ unsigned __rl_warp_execs[32];  // its hook executions, estimated
#if RELAYOUT_TIME_RULE_
// The budgets' clocks, per warp: at entry, and cycles spent classifying; and for the time rule,
// when the classifier last returned.
static __shared__ unsigned __rl_warp_start[32];
static __shared__ unsigned __rl_warp_spent[32];
#endif
#if RELAYOUT_TIME_RULE_
static __shared__ unsigned __rl_warp_last[32];
#endif
// Per warp, the sites ([0]) and loops ([1]) it has run, by id modulo 32 (bits 0-31): a hook's first
// execution in a warp is classified whatever the draw, so that an access made once per thread after
// a long loop is counted exactly rather than drawn at one in 1024 and weighted by as much. With a
// split launch, the hooks whose first executions other warps classify count as run from the
// start, and bits 32-63 hold those whose first execution has not come yet: it is not classified
// (the hook skips it without a call, or the classifier of a warp that traces), and clears its bit.
// One word, so that a hook reads both with one load. (A hook sharing its id modulo 32 with one that
// ran before in the warp is drawn from its first execution on, in every warp: unbiased, only less
// exact.)
// 8 slots: 1 KB of shared memory per block (32 took 4 KB, which a kernel with large tiles may lack
// for its blocks). A second site in a slot ends the first's round early, and the rest is drawn as
// any later execution: unbiased, only less exact.
#define RELAYOUT_ROUND_SLOTS_ 8
// Rows 2 on: per warp and slot (site id modulo the slots, two to a word), the lanes that have made
// the first round so far of a site no loop of its function encloses (__rl_site_once). A warp that
// left a loop apart makes such an access in several lane groups; each lane's first execution
// belongs to the first round, which is classified (or, left to other warps, skipped) whole. Drawn
// at the period the loop left the warp at, as its later groups were, md_celllist's force write,
// made once per thread after the neighbour loops, was counted from a few draws weighing 256 each,
// and its pick varied. In the same array as the seen words, at their stride per warp, a hook finds
// its round word at a constant offset from the seen word it loads anyway. In an array of its own,
// the word's per-warp address took registers of its own: 22 of the 159 kernels of the samples and
// corpus used 1 to 8 more than with plain hooks (kmeans's assignPoints 6, photon's propagatePhotons
// 6, himeno's jacobi 6); here 9 do, by 1 to 6.
static __shared__ unsigned long long __rl_warp_seen[2 + RELAYOUT_ROUND_SLOTS_ / 2][32];
#endif
// Set in the id a site's hook passes the classifier when it is __rl_site_once's.
constexpr unsigned __rl_once_bit = 1u << 31;
#if RELAYOUT_ITERATION_DRAWS_
// Per warp, the draw of the loop iteration it runs hooked (__rl_iteration, even), else 1: inside
// one, every hook calls and classifies by that draw, so that the accesses it makes, in its body
// and in what it calls, are drawn with the iteration.
static __shared__ unsigned __rl_warp_draw[32];
#endif
#if RELAYOUT_LOOP_PREFIXES_
// Per warp, the weight of what it classifies (1 outside a loop's prefix), and the loop id + 1 whose
// prefix set it (0: none).
static __shared__ unsigned __rl_warp_scale[32];
static __shared__ unsigned __rl_warp_scale_loop[32];
#endif
#if RELAYOUT_SITE_SPLIT_
// The block's launch's split k: the least shift of its warps, and the weight of a first execution.
static __shared__ unsigned __rl_site_split;
#endif
// One counter per loop id: loop body executions, active lanes summed (the paper's Count).
static __device__ unsigned long long __rl_loop_counters[(RELAYOUT_COUNTER_STRIPES) * RELAYOUT_LOOP_ROWS_];

#if (RELAYOUT_TRACE_CAPACITY) > 0
// The buffer is split evenly among the kernel rows: with one shared cursor the first kernel to
// run filled it, and cfd's main kernel, launched after another, was never traced.
#define RELAYOUT_TRACE_SLICE_ ((RELAYOUT_TRACE_CAPACITY) / RELAYOUT_KERNEL_ROWS_)
// A few warps of each traced launch are traced for long, rather than every warp for its first
// accesses: the model sees a warp reuse its sectors (nbody's loop over all bodies) only in long
// runs of one warp's accesses. The launch's first classifying warps in grid order trace
// (__rl_trace_enter); each owns a region of its kernel's slice, room for RELAYOUT_TRACE_DEPTH
// accesses of 32 lanes, so that a traced access reserves its records in shared memory rather than
// waiting for an atomic on one global cursor per kernel that every traced warp contended for.
#ifndef RELAYOUT_TRACE_DEPTH  // `relayout instrument --trace` defines it (--trace-depth)
#define RELAYOUT_TRACE_DEPTH 64
#endif
#define RELAYOUT_TRACE_WARPS_                                                                        \
  ((RELAYOUT_TRACE_SLICE_) / (32 * (RELAYOUT_TRACE_DEPTH) * RELAYOUT_TRACE_SLOTS_) > 0                 \
       ? (RELAYOUT_TRACE_SLICE_) / (32 * (RELAYOUT_TRACE_DEPTH) * RELAYOUT_TRACE_SLOTS_)               \
       : 1)
// Records per ticket: a slice too small for one full region per slot shares what it has.
#define RELAYOUT_TRACE_REGION_                                                                       \
  ((RELAYOUT_TRACE_SLICE_) / (RELAYOUT_TRACE_WARPS_ * RELAYOUT_TRACE_SLOTS_) < 32ull * (RELAYOUT_TRACE_DEPTH)  \
       ? (RELAYOUT_TRACE_SLICE_) / (RELAYOUT_TRACE_WARPS_ * RELAYOUT_TRACE_SLOTS_)                     \
       : 32ull * (RELAYOUT_TRACE_DEPTH))
static_assert((RELAYOUT_TRACE_CAPACITY) < (1ull << 32), "relayout: trace records are indexed with 32 bits");
static __device__ RelayoutTraceRecord __rl_trace_records[RELAYOUT_TRACE_ROWS_];
// The hooks' trace words (__rl_warp_words_t) pack a warp's records taken in 20 bits.
static_assert((RELAYOUT_TRACE_DEPTH) >= 1 && (RELAYOUT_TRACE_DEPTH) <= 2048, "RELAYOUT_TRACE_DEPTH is 1 to 2048");
// Per kernel row, records a traced warp asked for that did not fit in its region.
static __device__ unsigned long long __rl_trace_dropped[RELAYOUT_KERNEL_ROWS_];
// Per kernel row, the grid ids (+1, 0 = free) of the first launches admitted to the trace.
static __device__ unsigned long long __rl_trace_grids[RELAYOUT_KERNEL_ROWS_ * RELAYOUT_TRACE_SLOTS_];
#endif

#ifdef __CUDA_ARCH__
// Linear indices as CUDA forms warps from them: the block in its grid, the thread in its block.
static __device__ __forceinline__ unsigned long long __rl_block_index() {
  return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
// The blocks of the running launch.
static __device__ __forceinline__ unsigned long long __rl_grid_blocks() {
  return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
static __device__ __forceinline__ unsigned __rl_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
// The warps of a block, as CUDA cuts them from the linear thread index.
static __device__ __forceinline__ unsigned __rl_warps_per_block() {
  return (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
}

static __device__ __forceinline__ unsigned __rl_kernel_row() {
#if (RELAYOUT_NUM_KERNELS) == 0  // no comparison to warn about in a unit without kernels (-Werror builds)
  return 0;
#else
  const unsigned k = __rl_kernel_id;
  return k < (RELAYOUT_NUM_KERNELS) ? k : (RELAYOUT_NUM_KERNELS);
#endif
}

static __device__ __forceinline__ unsigned long long __rl_grid_id() {
  unsigned long long grid;
  asm("mov.u64 %0, %%gridid;" : "=l"(grid));
  return grid;
}

// Which of the first `count` launches of its kernel launch `grid` is (its slot), or -1 when it is
// not among them; the slots hold the grid ids (+1) admitted so far. Called by one thread;
// concurrent launches race for the slots.
static __device__ int __rl_admitted_slot(unsigned long long* slots, unsigned count, unsigned long long grid) {
  for (unsigned s = 0; s < count; ++s) {
    unsigned long long seen = *(volatile unsigned long long*)&slots[s];
    if (seen == 0) seen = atomicCAS(&slots[s], 0ull, grid + 1);
    if (seen == 0 || seen == grid + 1) return (int)s;
  }
  return -1;
}

#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
// Whether launch `grid` of `blocks` blocks classifies in kernel row `row`, as the weight of its
// counts (0: it does not): one of its first RELAYOUT_SAMPLE_LAUNCHES launches, or a later one whose
// grid grew past the largest admitted (one of RELAYOUT_GROWTH_LAUNCHES more slots), at weight 1;
// else a checkpoint, at the weight of its slot's. The host (__rl_pick) runs the instrumented
// kernel only for these launches, so any other that reaches here is the next checkpoint. Every
// classifying block of a launch asks; they agree through the slot that holds their grid id.
static __device__ unsigned __rl_admitted_launch(unsigned row, unsigned long long grid, unsigned long long blocks) {
  unsigned long long* slots = &__rl_launch_grids[row * RELAYOUT_LAUNCH_SLOTS_];
  unsigned weight = __rl_admitted_slot(slots, RELAYOUT_SAMPLE_LAUNCHES, grid) >= 0 ? 1u : 0u;
  const unsigned grownEnd = (RELAYOUT_SAMPLE_LAUNCHES) + (RELAYOUT_GROWTH_LAUNCHES);
  for (unsigned s = RELAYOUT_SAMPLE_LAUNCHES; weight == 0 && s < grownEnd; ++s) {
    unsigned long long held = *(volatile unsigned long long*)&slots[s];
    if (held == 0) {
      if (!__rl_launch_grew(*(volatile unsigned long long*)&__rl_launch_largest[row], blocks)) break;
      held = atomicCAS(&slots[s], 0ull, grid + 1);
    }
    if (held == 0 || held == grid + 1) weight = 1;
  }
  if (weight == 0) {  // neither first nor grown: the next checkpoint, or one of its later blocks
    const int checkpoint = __rl_admitted_slot(slots + grownEnd, RELAYOUT_CHECKPOINT_LAUNCHES, grid);
    if (checkpoint >= 0) weight = __rl_checkpoint_weight(RELAYOUT_SAMPLE_LAUNCHES, (unsigned)checkpoint);
  }
  if (weight) {
    __threadfence();  // a later block of a grown launch that sees the new largest also sees its slot
    atomicMax(&__rl_launch_largest[row], blocks);
  }
  return weight;
}
#endif

#if (RELAYOUT_TRACE_CAPACITY) > 0
// The slot of this launch among the first RELAYOUT_TRACE_LAUNCHES of its kernel, or -1 (0 for
// every launch when all are traced). Called by one lane.
static __device__ int __rl_trace_slot(unsigned long long grid) {
#if (RELAYOUT_TRACE_LAUNCHES) > 0
  return __rl_admitted_slot(&__rl_trace_grids[__rl_kernel_row() * RELAYOUT_TRACE_SLOTS_], RELAYOUT_TRACE_LAUNCHES,
                            grid);
#else
  (void)grid;
  return 0;
#endif
}

#endif

// One block in this many classifies in a grid of `blocks` (rt_common.h, __rl_grid_block_period).
static __device__ __forceinline__ unsigned long long __rl_block_period(unsigned long long blocks) {
#if (RELAYOUT_BLOCK_PERIOD) == 1 && (RELAYOUT_MAX_BLOCKS) == 0
  (void)blocks;
  return 1;  // every block classifies
#else
  return __rl_grid_block_period(blocks, RELAYOUT_BLOCK_PERIOD, RELAYOUT_MIN_BLOCKS, RELAYOUT_MAX_BLOCKS);
#endif
}

static __device__ __forceinline__ bool __rl_sampled_block() {
#if (RELAYOUT_BLOCK_PERIOD) > 1 || (RELAYOUT_MAX_BLOCKS) > 0
  const unsigned long long blocks = __rl_grid_blocks();
  const unsigned long long period = __rl_block_period(blocks);
  // The usual case divides by a constant: without --sample-launches this runs in every hook. A
  // grid's own period differs from it, a power of two (it is below it or above it).
  if (period == (RELAYOUT_BLOCK_PERIOD))
    return __rl_grid_block_classifies(__rl_block_index(), blocks, RELAYOUT_BLOCK_PERIOD, RELAYOUT_BLOCK_FRONT);
  return __rl_grid_block_classifies(__rl_block_index(), blocks, period, RELAYOUT_BLOCK_FRONT);
#else
  return true;
#endif
}

#if RELAYOUT_SITE_SPLIT_
// The launch's split k: about RELAYOUT_SITE_WARPS of its classifying warps classify each hook's
// first executions, each at weight 2^k.
static __device__ unsigned __rl_launch_site_split() {
  const unsigned long long blocks = __rl_grid_blocks();
  const unsigned long long period = __rl_block_period(blocks);
  const unsigned long long warps = __rl_grid_classifying_blocks(blocks, period) * __rl_warps_per_block();
  unsigned split = 0;
  while (split < (RELAYOUT_MAX_SITE_SPLIT) && warps >> (split + 1) >= (RELAYOUT_SITE_WARPS)) ++split;
  return split;
}

// The hooks (by id modulo 32) whose first executions warp `w` of this block classifies under split
// k: every 2^k-th id from an offset drawn by a Fibonacci hash of the warp's index in its grid, so
// that consecutive warps, and the warps of classifying blocks a step apart, spread over the offsets.
static __device__ __forceinline__ unsigned __rl_site_subset(unsigned w, unsigned split) {
  if (split == 0) return ~0u;
  const unsigned warpsPerBlock = __rl_warps_per_block();
  const unsigned warp = (unsigned)__rl_block_index() * warpsPerBlock + w;
  const unsigned offset = (warp * 2654435761u) >> (32 - split);
  return (unsigned)(0xFFFFFFFFull / ((1ull << (1u << split)) - 1)) << offset;  // bits 0, 2^k, ... shifted
}
#endif

// Whether this thread's block classifies its accesses.
static __device__ __forceinline__ bool __rl_active() {
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
  return __rl_block_on != 0;
#else
  return __rl_sampled_block();
#endif
}

// Whether the warp classifies this execution of a hook: about one in RELAYOUT_EXEC_PERIOD. The
// first active lane steps the warp's sequence and shares the draw, so the warp agrees.
static __device__ __forceinline__ bool __rl_sampled_exec() {
#if (RELAYOUT_EXEC_PERIOD) > 1
  const unsigned mask = __activemask();
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned leader = __ffs(mask) - 1;
  unsigned draw = 0;
  if (lane == leader) {
    const unsigned w = (__rl_thread_index() / 32) & 31;
    draw = __rl_warp_seed[w] * 1664525u + 1013904223u;  // Numerical Recipes' LCG
    __rl_warp_seed[w] = draw;
  }
  draw = __shfl_sync(mask, draw, leader);
  return ((draw >> 16) & ((RELAYOUT_EXEC_PERIOD) - 1)) == 0;  // the LCG's high bits are the random ones
#else
  return true;
#endif
}

#if RELAYOUT_EXEC_SAMPLING_
static __device__ __forceinline__ unsigned __rl_clock() {
  unsigned now;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(now));
  return now;
}

// The clock as the budgets read it, and the cycles warp `w` has spent classifying; without a
// budget neither is kept, so that the classifier reads no clock and keeps no more state.
static __device__ __forceinline__ unsigned __rl_budget_clock() {
#if RELAYOUT_TIME_RULE_
  return __rl_clock();
#else
  return 0;
#endif
}
static __device__ __forceinline__ unsigned __rl_spent(unsigned w) {
#if RELAYOUT_TIME_RULE_
  return __rl_warp_spent[w];
#else
  (void)w;
  return 0;
#endif
}

#if RELAYOUT_TIME_RULE_
// What warp `w`, having spent `spent` cycles in calls, may still spend at clock `now` under a budget
// of `percent` of its time since entry, after the credit.
static __device__ __forceinline__ float __rl_share_left(unsigned w, unsigned now, unsigned spent, unsigned percent) {
  return (float)(now - __rl_warp_start[w]) * (0.01f * percent) + (float)(RELAYOUT_EXEC_CREDIT) - (float)spent;
}
#endif

// What a warp may still spend classifying at clock `now`, by the time rule (no limit without one).
static __device__ __forceinline__ float __rl_budget_left(unsigned w, unsigned now, unsigned spent) {
#if RELAYOUT_TIME_RULE_
  return __rl_share_left(w, now, spent, RELAYOUT_EXEC_BUDGET);
#else
  (void)w, (void)now, (void)spent;
  return 1.0f;
#endif
}

// The launch's split k (above), the least shift of its classifying warps; 0 without splitting.
static __device__ __forceinline__ unsigned __rl_split() {
#if RELAYOUT_SITE_SPLIT_
  return __rl_site_split;
#else
  return 0;
#endif
}

// The word of __rl_warp_seen that holds warp `w`'s first round of site `id` (outside loops).
static __device__ __forceinline__ unsigned& __rl_round_word(unsigned w, unsigned id) {
  const unsigned slot = id % RELAYOUT_ROUND_SLOTS_;
  return reinterpret_cast<unsigned*>(&__rl_warp_seen[2 + slot / 2][w])[slot % 2];
}

// Whether the lanes `mask` on site `id` make part of the warp's first round there (none of them has
// run the site before; they are added): 1, more may come; 2, they complete the warp; 0, the round
// was over (a lane runs the site again), and this is a later execution.
static __device__ __forceinline__ unsigned __rl_first_round(unsigned w, unsigned id, unsigned mask) {
  unsigned& lanes = __rl_round_word(w, id);
  if (lanes & mask) return 0u;
  lanes |= mask;
  return lanes == 0xFFFFFFFFu ? 2u : 1u;
}

// What the classifier does with this execution of hook `id` (a site, else a loop), decided by the
// first lane of the lanes on it from the warp's clock hash `h` and state: bit 0 classify, bits 8 on
// the shift of the classified counts; 0: nothing.
// The hook's first execution in the warp is classified at weight 2^k (within the time budget),
// where the launch's split k leaves it to one warp in 2^k (the other warps skip theirs: bits 32-63
// of __rl_warp_seen); any other at 2^shift when drawn. For a site outside loops (`once`) the first
// execution is the first round: each lane's first, whichever group of lanes makes it. `mask`: the
// lanes on the hook; `now`: the time rule's clock at the decision.
static __device__ unsigned __rl_budget_plan(unsigned h, unsigned id, unsigned mask, bool site, bool once,
                                            bool iterated, unsigned now) {
  const unsigned w = (__rl_thread_index() / 32) & 31;
  unsigned long long& seen = __rl_warp_seen[site ? 0 : 1][w];
  const unsigned long long bit = 1ull << (id & 31);
  unsigned shift = __rl_warp_shift[w], plan = 0;
  const bool drawn = h <= (0xFFFFFFFFu >> shift);
  if (iterated) {  // a drawn iteration: 0 is a loop's first iteration in the warp, at the split's weight
    if (h == 0) shift = __rl_split(), plan = 1u;
    else if (drawn) plan = 1u;
  } else if (seen & bit << 32) {  // left to other warps, reached through an open gate (a warp that traces)
    const unsigned round = once ? __rl_first_round(w, id, mask) : 2u;
    if (round != 1u) seen &= ~(bit << 32);
    if (round == 0u && drawn) plan = 1u;  // an execution after the round, drawn as any
  } else if (!(seen & bit) && __rl_budget_left(w, now, __rl_spent(w)) >= 0.0f) {
    const unsigned round = once ? __rl_first_round(w, id, mask) : 2u;
    if (round != 1u) seen |= bit;  // the hook calls again only when drawn
    if (round != 0u) shift = __rl_split(), plan = 1u;
    else if (drawn) plan = 1u;
  } else if (drawn) {
    plan = 1u;
  }
  return plan ? plan | shift << 8 : 0u;
}

// The plan of the lanes `mask` on hook `id`, made by their `leader` (which also reads the time
// rule's clock into `start`) from one draw for the warp, the first active lane's hash `h`: lanes
// that reached the call apart agree.
static __device__ __forceinline__ unsigned __rl_group_plan(unsigned active, unsigned mask, unsigned lane,
                                                           unsigned leader, unsigned h, unsigned id, bool site,
                                                           bool once, bool iterated, unsigned& start) {
  h = __shfl_sync(active, h, __ffs(active) - 1);
  unsigned plan = 0;
  start = 0;
  if (lane == leader) start = __rl_budget_clock(), plan = __rl_budget_plan(h, id, mask, site, once, iterated, start);
  return __shfl_sync(mask, plan, leader);
}

// After the classifier's work, which started at `start` and was planned as `plan`: counts the
// warp's executions, charges the work to the warp's time, and sets the shift for the next draws,
// the larger of the count rule's and the time rule's (above).
static __device__ void __rl_budget_charge(unsigned start, unsigned plan) {
  const unsigned w = (__rl_thread_index() / 32) & 31;
  const unsigned oldShift = plan >> 8;
  // The warp's executions so far, estimated as the counters are: this one, classified (the only
  // plan that reaches here), stands for 2^shift.
  const unsigned seen = 1u << oldShift;
  const unsigned execs = __rl_warp_execs[w] + seen < seen ? 0xFFFFFFFFu : __rl_warp_execs[w] + seen;
  __rl_warp_execs[w] = execs;
  unsigned shift = __rl_split();
#if (RELAYOUT_FULL_EXECS) > 0
  const unsigned counted = execs / (RELAYOUT_FULL_EXECS);
  if (counted > shift) shift = counted > (RELAYOUT_MAX_EXEC_SHIFT) ? (RELAYOUT_MAX_EXEC_SHIFT) : counted;
#endif
#if RELAYOUT_TIME_RULE_
  const unsigned now = __rl_clock();
  const unsigned cost = now - start + 64;  // and about what the call and return take
  unsigned spent = __rl_warp_spent[w] + cost;
  // A long-lived warp halves its time and its spending alike, so that the 32-bit clock may wrap.
  if (now - __rl_warp_start[w] > (1u << 30)) {
    __rl_warp_start[w] = now - ((now - __rl_warp_start[w]) >> 1);
    spent >>= 1;
  }
  __rl_warp_spent[w] = spent;
#else
  (void)start;
#endif
#if RELAYOUT_TIME_RULE_
  const unsigned gap = start - __rl_warp_last[w];  // the user's code since the last call
  __rl_warp_last[w] = now;
  const float left = __rl_budget_left(w, now, spent);
  if (left < (float)cost) {
    // About 2^oldShift executions ran in the gap; one call every 2^s of
    // them takes the budget's share when 2^s = cost * (100 - budget) / (budget * perExecution).
    const float perExecution = (float)(gap > 0 ? gap : 1) / (float)(1u << oldShift);
    const float ratio = (float)cost * (100 - (RELAYOUT_EXEC_BUDGET)) / ((float)(RELAYOUT_EXEC_BUDGET)*perExecution);
    unsigned timed = ratio > 1.0f ? (unsigned)ceilf(__log2f(ratio)) : 0u;
    timed += left < 0.0f;  // in debt: pay it back
    if (timed > shift) shift = timed > 31 ? 31 : timed;
  }
#endif
  __rl_warp_shift[w] = (unsigned char)shift;
#if (RELAYOUT_TRACE_CAPACITY) > 0
  // Open while the warp traces. (Should a traced access end the trace between the read and the
  // write, the next finds no room and closes it again.)
  __rl_warp_words.drawGate[w] = 0xFFFFFFFFu >> shift;
  const bool tracing = __rl_warp_words.traceCursor[w] >> 20 < (RELAYOUT_TRACE_DEPTH);
  __rl_warp_words.gate[w] = tracing ? 0xFFFFFFFFu : 0xFFFFFFFFu >> shift;
#else
  __rl_warp_words.gate[w] = 0xFFFFFFFFu >> shift;
#endif
}
#endif

// Whether this call comes from an iteration the warp drew as a whole (__rl_iteration): its hash
// `h` is then odd, and becomes the draw's. A hook there is classified when the draw passes the
// warp's current period (a loop's first iteration, draw 0, at the split's weight), without the
// first-execution rule, since the iterations not drawn are not seen.
static __device__ __forceinline__ bool __rl_in_drawn_iteration(unsigned& h) {
#if RELAYOUT_ITERATION_DRAWS_
  if (h & 1u) {  // a hook of a drawn iteration passes its draw's hash, odd; its own draws are even
    h &= ~1u;
    return true;
  }
#else
  (void)h;
#endif
  return false;
}

// The weight of a classified execution drawn at period 2^shift: times the trip count over the
// prefix inside a long loop's prefix (__rl_prefix), and times the launches a checkpoint launch
// stands for.
static __device__ __forceinline__ unsigned long long __rl_weight(unsigned shift) {
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
  const unsigned long long launch = __rl_block_on;  // a checkpoint stands for several launches
#else
  const unsigned long long launch = 1;
#endif
#if RELAYOUT_LOOP_PREFIXES_
  return launch * *(volatile unsigned*)&__rl_warp_scale[(__rl_thread_index() / 32) & 31] << shift;
#else
  return launch << shift;
#endif
}

// Out of line, reached only through __rl_hook_call (which calls it through its address, so it
// shares __rl_count_loop's prototype), so that the user's code stays close to the original. `h`
// is the hook's clock hash under execution sampling, else 0. The hook of a site that no loop of
// its function encloses (__rl_site_once), whose first round is classified whole, sets
// __rl_once_bit in `id`: one classifier for both kinds, as two copies of it in one kernel took
// broadphase's sweep 15% longer.
static __device__ __noinline__ void __rl_classify(unsigned id, unsigned long long a, unsigned h) {
  const bool once = (id & __rl_once_bit) != 0;
  id &= ~__rl_once_bit;
  const bool iterated = __rl_in_drawn_iteration(h);
  const unsigned active = __activemask();
  unsigned lane, lanesBelow;
  // %laneid, not threadIdx.x % 32: warps of 2D/3D blocks are cut from the linear thread index.
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanesBelow));
  // Lanes that reached this shared function from different sites can run it together: each site's
  // lanes are one access, so they classify apart; so do lanes of different draws.
  const unsigned mask =
      iterated ? __match_any_sync(active, (unsigned long long)h << 32 | id) : __match_any_sync(active, id);
  const unsigned leader = __ffs(mask) - 1;
#if RELAYOUT_EXEC_SAMPLING_
  unsigned start;
  const unsigned plan = __rl_group_plan(active, mask, lane, leader, h, id, true, once, iterated, start);
  if (plan == 0) return;
  const unsigned shift = plan >> 8;
#else
  (void)h, (void)iterated, (void)once;
  if (!__rl_sampled_exec()) return;
  const unsigned shift = 0;
#endif
  unsigned long long sectors = 0, lines = 0, nearSum = 0;
  bool shared = false;

  // Fast path: a full warp stepping by one stride has closed-form counters (warp_classify.h).
  bool uniform = false;
  if (mask == 0xffffffffu) {
    const unsigned long long a0 = __shfl_sync(mask, a, 0);
    const unsigned long long stride = __shfl_sync(mask, a, 1) - a0;
    uniform = __all_sync(mask, a == a0 + stride * lane);
    if (uniform) {
      const relayout::rt::WarpCounters c = relayout::rt::classifyUniformStride(a0, (long long)stride);
      sectors = c.sectors, lines = c.lines, nearSum = c.nearLanes, shared = c.sharedWarps != 0;
    }
  }
  if (!uniform) {
    // Distinct sectors / lines: count the lowest lane of each group of lanes that share one.
    const unsigned sameSector = __match_any_sync(mask, a >> 5);
    const unsigned sameLine = __match_any_sync(mask, a >> 7);
    sectors = __popc(__ballot_sync(mask, (sameSector & lanesBelow) == 0));
    lines = __popc(__ballot_sync(mask, (sameLine & lanesBelow) == 0));
    // Lanes on one address share its sector: with a sector per lane (gathers) skip the match.
    // The condition is warp-uniform, so every lane in mask reaches the match or none does.
    shared = sectors < (unsigned)__popc(mask) && __any_sync(mask, __match_any_sync(mask, a) != (1u << lane));

    // near lanes: other active lanes whose address b has a <= b <= a + 128. Offsets from the
    // first active lane's address fit 32 bits in practice, which halves the shuffles.
    const long long offset = (long long)(a - __shfl_sync(mask, a, leader));
    unsigned near = 0;
    if (__all_sync(mask, offset > -(1ll << 30) && offset < (1ll << 30))) {
      const int mine = (int)offset;
#pragma unroll
      for (unsigned j = 0; j < 32; ++j) {
        const int b = __shfl_sync(mask, mine, j);  // undefined for inactive j: masked out below
        near += (mask >> j & 1u) && j != lane && b >= mine && b - mine <= 128;
      }
    } else {
#pragma unroll 4
      for (unsigned j = 0; j < 32; ++j) {
        const unsigned long long b = __shfl_sync(mask, a, j);
        near += (mask >> j & 1u) && j != lane && b >= a && b - a <= 128;
      }
    }
    nearSum = __reduce_add_sync(mask, near);
  }

  if (lane == leader) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    const size_t row = ((size_t)(sm % (RELAYOUT_COUNTER_STRIPES)) * RELAYOUT_SITE_ROWS_ + id) * RELAYOUT_KERNEL_ROWS_ +
                       __rl_kernel_row();
    unsigned long long* c = &__rl_counters[row * RELAYOUT_COUNTER_COLUMNS];
    const unsigned long long weight = __rl_weight(shift);
    atomicAdd(&c[0], weight);
    atomicAdd(&c[1], (unsigned long long)__popc(mask) * weight);
    atomicAdd(&c[2], sectors * weight);
    atomicAdd(&c[3], lines * weight);
    if (nearSum) atomicAdd(&c[4], nearSum * weight);
    if (shared) atomicAdd(&c[5], weight);
  }
#if RELAYOUT_EXEC_SAMPLING_
  if (lane == leader) __rl_budget_charge(start, plan);
#endif
}

// The first active lane adds the warp's active lanes: one atomic per warp and iteration.
static __device__ __noinline__ void __rl_count_loop(unsigned id, unsigned long long, unsigned h) {
  const bool iterated = __rl_in_drawn_iteration(h);
  const unsigned active = __activemask();
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned mask = __match_any_sync(active, id);  // lanes of other loops count apart
  const unsigned leader = __ffs(mask) - 1;
#if RELAYOUT_EXEC_SAMPLING_
  unsigned start;
  const unsigned plan = __rl_group_plan(active, mask, lane, leader, h, id, false, false, iterated, start);
  if (plan == 0) return;
  const unsigned shift = plan >> 8;
#else
  (void)h, (void)iterated;
  if (!__rl_sampled_exec()) return;
  const unsigned shift = 0;
#endif
  if (lane == leader) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    atomicAdd(&__rl_loop_counters[(sm % (RELAYOUT_COUNTER_STRIPES)) * RELAYOUT_LOOP_ROWS_ + id],
              (unsigned long long)__popc(mask) * __rl_weight(shift));
  }
#if RELAYOUT_EXEC_SAMPLING_
  if (lane == leader) __rl_budget_charge(start, plan);
#endif
}
#endif  // __CUDA_ARCH__

#ifdef __CUDA_ARCH__
#if RELAYOUT_EXEC_SAMPLING_
// Execution sampling, in PTX: a hash of the SM's clock (Knuth's 2654435761 as -1640531535)
// against the warp's gate, and whether the hook has run before in the warp (bit %6 of the warp's
// mask at %5, both loaded by RELAYOUT_HOOK_ON_PTX_); a hook that does not call costs those loads,
// a clock read, a multiply and a branch, and writes no state (with --draw-iterations it first
// reads the draw in force, and skips at once in an iteration not drawn). Leaves the hash in %rl_h;
// skips to RL_DONE when the hook ran before in the warp and the hash is above the gate.
// Bit 32 + %6 of the mask (a split launch's first execution left to other warps, which is never
// classified here) is tested only past that branch (PENDING): the hook then skips without a call
// and clears the bit (%8: the high word without it), unless the gate is open (a warp that traces
// records the access; the classifier clears the bit).
#define RELAYOUT_EXEC_DRAW_PTX_(PENDING)                                \
  RELAYOUT_DRAW_TEST_PTX_                                               \
  "mov.u32 %%rl_h, %%clock;\n\t"                                        \
  "mul.lo.u32 %%rl_h, %%rl_h, -1640531535;\n\t" RELAYOUT_EVEN_HASH_PTX_ \
  "shr.b64 %%rl_m, %%rl_m, %6;\n\t"                                     \
  "and.b64 %%rl_m, %%rl_m, 0x100000001;\n\t"                            \
  "setp.ne.u64 %%rl_q, %%rl_m, 1;\n\t"                                  \
  "setp.le.or.u32 %%rl_q, %%rl_h, %%rl_g, %%rl_q;\n\t"                  \
  "@!%%rl_q bra RL_DONE;\n\t"                                           \
  "setp.gt.u64 %%rl_p, %%rl_m, 1;\n\t"                                  \
  "setp.ne.and.u32 %%rl_p, %%rl_g, -1, %%rl_p;\n\t" PENDING
// A pending first execution of a hook: skipped, its bit cleared by the first of the lanes on it.
#define RELAYOUT_PENDING_SKIP_PTX_                     \
  "activemask.b32 %%rl_s;\n\t"                         \
  "mov.u32 %%rl_e, %%lanemask_lt;\n\t"                 \
  "and.b32 %%rl_s, %%rl_s, %%rl_e;\n\t"                \
  "setp.eq.and.u32 %%rl_q, %%rl_s, 0, %%rl_p;\n\t"     \
  "@%%rl_q red.shared.and.b32 [%5+4], %8;\n\t"         \
  "@%%rl_p bra RL_DONE;\n\t"
// The same for a site outside loops (__rl_site_once), whose pending first execution is the warp's
// first round, in however many groups its lanes come: the first lane adds the group's lanes to the
// round's (%10, __rl_round_word) and hands the old ones to the others. A group of new lanes is
// skipped, and clears the bit when it completes the warp; a group with a lane that ran the site
// before clears it, and is drawn as any later execution.
#define RELAYOUT_PENDING_ROUND_PTX_                                 \
  "@!%%rl_p bra RL_ROUND_END;\n\t"                                  \
  "activemask.b32 %%rl_s;\n\t"                                      \
  "mov.u32 %%rl_e, %%lanemask_lt;\n\t"                              \
  "and.b32 %%rl_e, %%rl_s, %%rl_e;\n\t"                             \
  "setp.eq.u32 %%rl_q, %%rl_e, 0;\n\t"                              \
  "@%%rl_q atom.shared.or.b32 %%rl_e, [%10], %%rl_s;\n\t"           \
  "brev.b32 %%rl_o, %%rl_s;\n\t"                                    \
  "clz.b32 %%rl_o, %%rl_o;\n\t"                                     \
  "shfl.sync.idx.b32 %%rl_e, %%rl_e, %%rl_o, 31, %%rl_s;\n\t"       \
  "and.b32 %%rl_o, %%rl_e, %%rl_s;\n\t"                             \
  "setp.ne.u32 %%rl_p, %%rl_o, 0;\n\t"                              \
  "or.b32 %%rl_e, %%rl_e, %%rl_s;\n\t"                              \
  "setp.eq.or.u32 %%rl_r, %%rl_e, -1, %%rl_p;\n\t"                  \
  "and.pred %%rl_r, %%rl_r, %%rl_q;\n\t"                            \
  "@%%rl_r red.shared.and.b32 [%5+4], %8;\n\t"                      \
  "@!%%rl_p bra RL_DONE;\n\t"                                       \
  "setp.gt.u32 %%rl_p, %%rl_h, %%rl_g;\n\t"                         \
  "@%%rl_p bra RL_DONE;\n\t"                                        \
  "RL_ROUND_END:\n\t"
#else
#define RELAYOUT_EXEC_DRAW_PTX_(PENDING) "mov.u32 %%rl_h, 0;\n\t"
#define RELAYOUT_PENDING_SKIP_PTX_ ""
#define RELAYOUT_PENDING_ROUND_PTX_ ""
#endif
#if RELAYOUT_ITERATION_DRAWS_
// First, the warp's draw in force at %7: inside an iteration it did not draw (3) the hook does
// nothing, one shared load and a branch; inside a drawn one (even: the draw's hash) it calls,
// whatever its first-execution bits, which a drawn iteration does not use.
#define RELAYOUT_DRAW_TEST_PTX_                       \
  "ld.volatile.shared.u32 %%rl_h, [%7];\n\t"          \
  "setp.eq.u32 %%rl_q, %%rl_h, 3;\n\t"                \
  "@%%rl_q bra RL_DONE;\n\t"                          \
  "and.b32 %%rl_s, %%rl_h, 1;\n\t"                    \
  "setp.eq.u32 %%rl_q, %%rl_s, 0;\n\t"                \
  "or.b32 %%rl_h, %%rl_h, 1;\n\t"                     \
  "@%%rl_q bra RL_CALL;\n\t"
#define RELAYOUT_CALL_LABEL_PTX_ "RL_CALL:\n\t"
#define RELAYOUT_EVEN_HASH_PTX_ "and.b32 %%rl_h, %%rl_h, -2;\n\t"
#else
#define RELAYOUT_DRAW_TEST_PTX_ ""
#define RELAYOUT_CALL_LABEL_PTX_ ""
#define RELAYOUT_EVEN_HASH_PTX_ ""
#endif

#if (RELAYOUT_ABLATE) == 1
#define RELAYOUT_CALL_PTX_(ID) ""  // the draw decides, and nothing is called
#else
// The classifier's call, `slow(ID, a, %rl_h)` (operands %2 and %4).
#define RELAYOUT_CALL_PTX_(ID)                                                    \
  "{\n\t"                                                                         \
  ".param .b32 rl_id;\n\t"                                                        \
  ".param .b64 rl_a;\n\t"                                                         \
  ".param .b32 rl_hash;\n\t"                                                      \
  "st.param.b32 [rl_id], " ID ";\n\t"                                              \
  "st.param.b64 [rl_a], %2;\n\t"                                                  \
  "st.param.b32 [rl_hash], %%rl_h;\n\t"                                           \
  "rl_proto: .callprototype _ (.param .b32 _, .param .b64 _, .param .b32 _);\n\t" \
  "call %4, (rl_id, rl_a, rl_hash), rl_proto;\n\t"                                \
  "}\n"
#endif

#if (RELAYOUT_TRACE_CAPACITY) > 0
#define RELAYOUT_STRINGIFY_(x) #x
#define RELAYOUT_STRING_(x) RELAYOUT_STRINGIFY_(x)
// The trace, in PTX, so that a traced access costs no call. A warp that traces holds its gate open
// (__rl_warp_words_t), so each of its accesses passes the draw; RELAYOUT_TRACE_ROUTE_PTX_, where the
// hook would call, sends it to RL_TRACE, and only there (off the path of a hook that does not
// call) is the trace read: a fourth shared load or another branch in every hook took the
// rasterizer's hooked kernels past the register counts that keep their occupancy. The lanes here
// (one site, %1; their addresses, %2; the warp's gate at GATE) take one record each, consecutive
// in the warp's region, reserved with the access by their first lane's atomic; an access that
// does not fit is dropped (counted for its kernel row) and ends the trace, as does the
// RELAYOUT_TRACE_DEPTH-th access: the cursor then reads as RELAYOUT_TRACE_DEPTH accesses, and the
// gate closes to the draws' gate. Then at RL_TRACED the draw the open gate let through is made
// (RELAYOUT_TRACED_DRAW_PTX_), and the hook calls at RL_CLASSIFY or is done. Records are written in the file's layout
// (rt_abi.h); the host completes them (TraceWriter.cpp).
#define RELAYOUT_TRACE_DEPTH_PTX_ RELAYOUT_STRING_(RELAYOUT_TRACE_DEPTH)
#if RELAYOUT_EXEC_SAMPLING_
#define RELAYOUT_TRACE_ROUTE_PTX_             \
  "setp.eq.u32 %%rl_q, %%rl_g, -1;\n\t"       \
  "@%%rl_q bra RL_TRACE;\n\t"                 \
  "RL_CLASSIFY:\n\t"
#if RELAYOUT_ITERATION_DRAWS_
#define RELAYOUT_DRAWN_CALL_PTX_          \
  "and.b32 %%rl_s, %%rl_h, 1;\n\t"       \
  "setp.ne.u32 %%rl_q, %%rl_s, 0;\n\t"   \
  "@%%rl_q bra RL_CLASSIFY;\n\t"
#else
#define RELAYOUT_DRAWN_CALL_PTX_ ""
#endif
// A drawn iteration's call (an odd hash) classifies by its own draw; any other, as the hook would
// have drawn against the draws' gate: a first execution or a pending one, or a hash at most it.
#define RELAYOUT_TRACED_DRAW_PTX_(GATE)                   \
  "RL_TRACED:\n\t" RELAYOUT_DRAWN_CALL_PTX_               \
  "ld.volatile.shared.u32 %%rl_te, [" GATE "+128];\n\t"   \
  "setp.ne.u64 %%rl_q, %%rl_m, 1;\n\t"                    \
  "setp.le.or.u32 %%rl_q, %%rl_h, %%rl_te, %%rl_q;\n\t"   \
  "@%%rl_q bra RL_CLASSIFY;\n\t"                          \
  "bra RL_DONE;\n\t"
#else  // every execution calls: the trace's cursor says whether the warp traces
#define RELAYOUT_TRACE_ROUTE_PTX_ RELAYOUT_TRACE_TEST_PTX_("%3") "RL_CLASSIFY:\n\t"
#define RELAYOUT_TRACED_DRAW_PTX_(GATE) "RL_TRACED:\n\tbra RL_CLASSIFY;\n\t"
#endif
// Whether the warp traces: fewer than RELAYOUT_TRACE_DEPTH accesses recorded (to RL_TRACE if so).
#define RELAYOUT_TRACE_TEST_PTX_(GATE)                  \
  "ld.volatile.shared.u32 %%rl_te, [" GATE "+256];\n\t" \
  "shr.u32 %%rl_te, %%rl_te, 20;\n\t"                   \
  "setp.lt.u32 %%rl_q, %%rl_te, " RELAYOUT_TRACE_DEPTH_PTX_ ";\n\t" \
  "@%%rl_q bra RL_TRACE;\n\t"
// Written to hold few values at once (its temporaries add to the user's live registers wherever a
// hook stands): the record is stored a word or two at a time, what it names loaded from the
// block's words as it is stored. %rl_tc: the cursor, then the accesses before this one; %rl_ta:
// the lanes, then the record's index; %rl_tr: this lane's rank, then the record's last word;
// %rl_tn: the lanes' count; %rl_tb: the block's words (the gate's address less the warp's).
#define RELAYOUT_TRACE_BLOCK_PTX_(GATE)                                                  \
  "RL_TRACE:\n\t"                                                                       \
  "{\n\t"                                                                               \
  ".reg .pred %%rl_tl, %%rl_tk;\n\t"                                                    \
  ".reg .b32 %%rl_ta, %%rl_tr, %%rl_tn, %%rl_tc, %%rl_tf, %%rl_tb, %%rl_tg;\n\t"        \
  ".reg .b64 %%rl_td, %%rl_tw;\n\t"                                                     \
  "ld.volatile.shared.u32 %%rl_tc, [" GATE "+256];\n\t"                                 \
  "shr.u32 %%rl_tc, %%rl_tc, 20;\n\t"                                                   \
  "setp.ge.u32 %%rl_tk, %%rl_tc, " RELAYOUT_TRACE_DEPTH_PTX_ ";\n\t"                    \
  "@%%rl_tk bra RL_TRACE_CLOSE;\n\t"                                                    \
  "activemask.b32 %%rl_ta;\n\t"                                                         \
  "mov.u32 %%rl_tr, %%lanemask_lt;\n\t"                                                 \
  "and.b32 %%rl_tr, %%rl_tr, %%rl_ta;\n\t"                                              \
  "popc.b32 %%rl_tr, %%rl_tr;\n\t"                                                      \
  "popc.b32 %%rl_tn, %%rl_ta;\n\t"                                                      \
  "setp.eq.u32 %%rl_tl, %%rl_tr, 0;\n\t"                                                \
  "add.u32 %%rl_tc, %%rl_tn, 0x100000;\n\t"                                             \
  "@%%rl_tl atom.shared.add.u32 %%rl_tc, [" GATE "+256], %%rl_tc;\n\t"                  \
  "brev.b32 %%rl_tf, %%rl_ta;\n\t"                                                      \
  "bfind.shiftamt.u32 %%rl_tf, %%rl_tf;\n\t"                                            \
  "shfl.sync.idx.b32 %%rl_tc, %%rl_tc, %%rl_tf, 31, %%rl_ta;\n\t"                       \
  "and.b32 %%rl_ta, %%rl_tc, 0xFFFFF;\n\t"                                              \
  "shr.u32 %%rl_tc, %%rl_tc, 20;\n\t"                                                   \
  "mov.u32 %%rl_tb, %%tid.z;\n\t"                                                       \
  "mov.u32 %%rl_tf, %%ntid.y;\n\t"                                                      \
  "mov.u32 %%rl_te, %%tid.y;\n\t"                                                       \
  "mad.lo.u32 %%rl_tb, %%rl_tb, %%rl_tf, %%rl_te;\n\t"                                  \
  "mov.u32 %%rl_tf, %%ntid.x;\n\t"                                                      \
  "mov.u32 %%rl_te, %%tid.x;\n\t"                                                       \
  "mad.lo.u32 %%rl_tb, %%rl_tb, %%rl_tf, %%rl_te;\n\t"                                  \
  "shr.u32 %%rl_tb, %%rl_tb, 5;\n\t"                                                    \
  "and.b32 %%rl_tb, %%rl_tb, 31;\n\t"                                                   \
  "mov.u32 %%rl_te, %%rl_tb;\n\t"                                                       \
  "shl.b32 %%rl_tb, %%rl_tb, 2;\n\t"                                                    \
  "sub.u32 %%rl_tb, " GATE ", %%rl_tb;\n\t"                                             \
  "ld.shared.u32 %%rl_tf, [%%rl_tb+544];\n\t"                                           \
  "add.u32 %%rl_tg, %%rl_ta, %%rl_tn;\n\t"                                              \
  "setp.le.u32 %%rl_tk, %%rl_tg, %%rl_tf;\n\t"                                          \
  "setp.lt.and.u32 %%rl_tk, %%rl_tc, " RELAYOUT_TRACE_DEPTH_PTX_ ", %%rl_tk;\n\t"       \
  "@!%%rl_tk bra RL_TRACE_STOP;\n\t"                                                    \
  "add.u32 %%rl_ta, %%rl_ta, %%rl_tr;\n\t"                                              \
  "ld.shared.u32 %%rl_tf, [" GATE "+384];\n\t"                                          \
  "add.u32 %%rl_ta, %%rl_ta, %%rl_tf;\n\t"                                              \
  "mov.u32 %%rl_tr, %%laneid;\n\t"                                                      \
  "shl.b32 %%rl_tr, %%rl_tr, 16;\n\t"                                                   \
  "shl.b32 %%rl_tf, %%rl_tn, 24;\n\t"                                                   \
  "or.b32 %%rl_tr, %%rl_tr, %%rl_tf;\n\t"                                               \
  "ld.shared.u64 %%rl_td, [%%rl_tb+512];\n\t"                                           \
  "mad.wide.u32 %%rl_td, %%rl_ta, 32, %%rl_td;\n\t"                                     \
  "st.global.u64 [%%rl_td], %2;\n\t"                                                    \
  "ld.shared.u32 %%rl_tf, [%%rl_tb+528];\n\t"                                           \
  "st.global.u32 [%%rl_td+8], %%rl_tf;\n\t"                                             \
  "ld.shared.u32 %%rl_tf, [%%rl_tb+532];\n\t"                                           \
  "st.global.u32 [%%rl_td+12], %%rl_tf;\n\t"                                            \
  "ld.shared.u32 %%rl_tf, [%%rl_tb+540];\n\t"                                           \
  "st.global.u32 [%%rl_td+16], %%rl_tf;\n\t"                                            \
  "ld.shared.u32 %%rl_tf, [%%rl_tb+536];\n\t"                                           \
  "add.u32 %%rl_tf, %%rl_tf, %%rl_te;\n\t"                                              \
  "st.global.u32 [%%rl_td+20], %%rl_tf;\n\t"                                            \
  "st.global.v2.u32 [%%rl_td+24], {%1, %%rl_tr};\n\t"                                   \
  "add.u32 %%rl_tc, %%rl_tc, 1;\n\t"                                                    \
  "setp.lt.u32 %%rl_tk, %%rl_tc, " RELAYOUT_TRACE_DEPTH_PTX_ ";\n\t"                    \
  "@%%rl_tk bra RL_TRACED;\n\t"                                                         \
  "bra RL_TRACE_CLOSE;\n\t"                                                             \
  "RL_TRACE_STOP:\n\t"                                                                  \
  "setp.lt.and.u32 %%rl_tl, %%rl_tc, " RELAYOUT_TRACE_DEPTH_PTX_ ", %%rl_tl;\n\t"       \
  "@!%%rl_tl bra RL_TRACE_CLOSE;\n\t"                                                   \
  "mov.u32 %%rl_tf, " RELAYOUT_TRACE_DEPTH_PTX_ ";\n\t"                                  \
  "shl.b32 %%rl_tf, %%rl_tf, 20;\n\t"                                                   \
  "st.volatile.shared.u32 [" GATE "+256], %%rl_tf;\n\t"                                 \
  "ld.shared.u64 %%rl_td, [%%rl_tb+520];\n\t"                                           \
  "cvt.u64.u32 %%rl_tw, %%rl_tn;\n\t"                                                   \
  "red.global.add.u64 [%%rl_td], %%rl_tw;\n\t"                                          \
  "RL_TRACE_CLOSE:\n\t"                                                                 \
  "ld.volatile.shared.u32 %%rl_tc, [" GATE "+128];\n\t"                                 \
  "st.volatile.shared.u32 [" GATE "], %%rl_tc;\n\t"                                     \
  "}\n\t"
// After a hook's call: the trace, which falls through to RL_TRACED.
#define RELAYOUT_TRACE_PTX_(GATE) "bra RL_DONE;\n\t" RELAYOUT_TRACE_BLOCK_PTX_(GATE) RELAYOUT_TRACED_DRAW_PTX_(GATE)
#else
#define RELAYOUT_TRACE_ROUTE_PTX_ ""
#define RELAYOUT_TRACE_PTX_(GATE) ""
#endif

#if RELAYOUT_EXEC_SAMPLING_
// GATE: where the hook's gate is (%3, or for a loop's hook in a traced unit the draws' gate).
#define RELAYOUT_WARP_LOADS_PTX_(GATE)              \
  "ld.volatile.shared.u32 %%rl_g, [" GATE "];\n\t" \
  "ld.volatile.shared.u64 %%rl_m, [%5];\n\t"
#else
#define RELAYOUT_WARP_LOADS_PTX_(GATE) ""
#endif
// Whether the hook runs at all: its own condition %0 and, with launch sampling, the block's flag
// at %9, loaded with the warp's gate and mask so that the three loads wait together (the flag,
// loaded in C++ before the asm, was a load and a branch of its own ahead of them at every hook).
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
#define RELAYOUT_HOOK_ON_PTX_(GATE)                                         \
  "ld.volatile.shared.u32 %%rl_o, [%9];\n\t" RELAYOUT_WARP_LOADS_PTX_(GATE) \
  "setp.ne.u32 %%rl_p, %%rl_o, 0;\n\t"                                \
  "setp.ne.and.u32 %%rl_p, %0, 0, %%rl_p;\n\t"                        \
  "@!%%rl_p bra RL_DONE;\n\t"
#else
#define RELAYOUT_HOOK_ON_PTX_(GATE) \
  "setp.eq.u32 %%rl_p, %0, 0;\n\t@%%rl_p bra RL_DONE;\n\t" RELAYOUT_WARP_LOADS_PTX_(GATE)
#endif

// A hook's inline half: when `on` (the hook's own condition: a known id, a global address) and the
// block classifies (__rl_active, tested here), draws whether the warp may classify this execution
// and, if so, calls `slow(id, a, hash)`. The test and the call are in one asm statement because a
// branch in C++ would cut the user's code into separate basic blocks, and the compiler fuses a
// multiply and an add into one FMA only within a block: the hooked code would round differently
// from the original. The asm is one instruction to the compiler, which fuses across it as it would
// without it; ptxas sees the branch, after the arithmetic is fixed. The call is indirect, through
// the function's address, so that the asm need not name a symbol the compiler may mangle or drop.
// Kind: 0 a site, 1 a loop (which is not traced). A site of a warp that traces records the
// access first (RELAYOUT_TRACE_PTX_). `Once`: a site no loop of its function encloses.
template <unsigned Kind, bool Once = false>
static __device__ __forceinline__ void __rl_hook_call(bool on, void (*slow)(unsigned, unsigned long long, unsigned),
                                                      unsigned id, unsigned long long a) {
  const unsigned warp = (__rl_thread_index() / 32) & 31;
#if RELAYOUT_EXEC_SAMPLING_ || (RELAYOUT_TRACE_CAPACITY) > 0
  const unsigned gate = (unsigned)__cvta_generic_to_shared(&__rl_warp_words.gate[warp]);
#else
  const unsigned gate = 0;
#endif
#if RELAYOUT_EXEC_SAMPLING_
  const unsigned seen = (unsigned)__cvta_generic_to_shared(&__rl_warp_seen[Kind][warp]);
#else
  const unsigned seen = 0;
#endif
#if RELAYOUT_ITERATION_DRAWS_
  const unsigned draw = (unsigned)__cvta_generic_to_shared(&__rl_warp_draw[warp]);
#else
  const unsigned draw = 0;
#endif
#define RELAYOUT_HOOK_PTX_(GATE, PENDING, ROUTE, TRACE)                                              \
  "{\n\t"                                                                                            \
  ".reg .pred %%rl_p, %%rl_q, %%rl_r;\n\t"                                                           \
  ".reg .b32 %%rl_g, %%rl_h, %%rl_s, %%rl_e, %%rl_o, %%rl_te;\n\t"                                   \
  ".reg .b64 %%rl_m;\n\t"                                                                            \
  RELAYOUT_HOOK_ON_PTX_(GATE) RELAYOUT_EXEC_DRAW_PTX_(PENDING) RELAYOUT_CALL_LABEL_PTX_ ROUTE RELAYOUT_CALL_PTX_("%11") \
  TRACE                                                                                              \
  "RL_DONE:\n\t"                                                                                     \
  "}"
#if RELAYOUT_EXEC_SAMPLING_
  // Clears the pending bit in the mask's high word: a 32-bit AND is one shared atomic, where the
  // 64-bit one was a compare-and-swap loop that the warp's lanes ran in turn (about a third of the
  // time of a short kernel's classifying blocks). The first of the lanes on the hook runs it, not
  // each of them on the one word.
  const unsigned unpend = ~(1u << (id & 31));
#else
  const unsigned unpend = 0;
#endif
#if (RELAYOUT_ABLATE) != 2
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
  const unsigned flag = (unsigned)__cvta_generic_to_shared(&__rl_block_on);
#else
  const unsigned flag = 0;
  on = on & __rl_active();  // `&`, not `&&`: no branch in C++ around the user's code (above)
#endif
#if RELAYOUT_EXEC_SAMPLING_
  // A site outside loops: the word that holds the lanes of the warp's first round of it.
  const unsigned round = Once ? (unsigned)__cvta_generic_to_shared(&__rl_round_word(warp, id)) : 0u;
#else
  const unsigned round = 0;
#endif
#define RELAYOUT_HOOK_OPERANDS_                                                                                   \
  "r"((unsigned)on), "r"(id), "l"(a), "r"(gate), "l"(slow), "r"(seen), "r"(id & 31), "r"(draw), "r"(unpend), \
      "r"(flag), "r"(round), "r"(Once ? id | __rl_once_bit : id)
#if (RELAYOUT_TRACE_CAPACITY) > 0
  if constexpr (Kind == 0 && Once) {
    asm volatile(RELAYOUT_HOOK_PTX_("%3", RELAYOUT_PENDING_ROUND_PTX_, RELAYOUT_TRACE_ROUTE_PTX_,
                                    RELAYOUT_TRACE_PTX_("%3"))::RELAYOUT_HOOK_OPERANDS_);
    return;
  } else if constexpr (Kind == 0) {
    asm volatile(RELAYOUT_HOOK_PTX_("%3", RELAYOUT_PENDING_SKIP_PTX_, RELAYOUT_TRACE_ROUTE_PTX_,
                                    RELAYOUT_TRACE_PTX_("%3"))::RELAYOUT_HOOK_OPERANDS_);
    return;
  }
  // A loop's hook draws against the draws' gate: the gate a warp holds open while it traces lets
  // its sites' accesses reach the trace, and would send every iteration of its loops to the
  // classifier (the options pricer's lattice loops: 1.25x became 1.64x).
#define RELAYOUT_LOOP_GATE_PTX_ "%3+128"
#else
#define RELAYOUT_LOOP_GATE_PTX_ "%3"
#endif
  if constexpr (Once)
    asm volatile(RELAYOUT_HOOK_PTX_(RELAYOUT_LOOP_GATE_PTX_, RELAYOUT_PENDING_ROUND_PTX_, "", "")::RELAYOUT_HOOK_OPERANDS_);
  else
    asm volatile(RELAYOUT_HOOK_PTX_(RELAYOUT_LOOP_GATE_PTX_, RELAYOUT_PENDING_SKIP_PTX_, "", "")::RELAYOUT_HOOK_OPERANDS_);
#else
  (void)on, (void)slow, (void)id, (void)a, (void)gate, (void)seen, (void)draw, (void)unpend, (void)warp;
#endif
#undef RELAYOUT_HOOK_OPERANDS_
#undef RELAYOUT_HOOK_PTX_
#undef RELAYOUT_LOOP_GATE_PTX_
}

#if RELAYOUT_ITERATION_DRAWS_
// The hook of an access written in a drawn loop's body, which holds the iteration's draw in a
// register: it calls when the iteration is drawn (even), passing the draw's hash made odd (a drawn
// iteration's call), and otherwise costs a test and a branch, with no shared load but the block's
// flag (and the trace's state, when the unit traces: a warp that traces records every access, drawn
// or not). `on` as for __rl_hook_call: the hook's own condition, the block's tested here.
template <unsigned Kind>
static __device__ __forceinline__ void __rl_hook_call_drawn(bool on, unsigned draw,
                                                            void (*slow)(unsigned, unsigned long long, unsigned),
                                                            unsigned id, unsigned long long a) {
#if (RELAYOUT_ABLATE) == 2
  (void)on, (void)draw, (void)slow, (void)id, (void)a;
#else
  const unsigned gate = (unsigned)__cvta_generic_to_shared(&__rl_warp_words.gate[(__rl_thread_index() / 32) & 31]);
#if (RELAYOUT_TRACE_CAPACITY) > 0
  // A warp that traces records every access, drawn or not (a site's: Kind 0; loops are not traced).
#define RELAYOUT_DRAWN_TRACE_TEST_PTX_ RELAYOUT_TRACE_TEST_PTX_("%3") "RL_TRACED:\n\t"
#define RELAYOUT_DRAWN_TRACE_PTX_ "bra RL_DONE;\n\t" RELAYOUT_TRACE_BLOCK_PTX_("%3") "bra RL_TRACED;\n\t"
#else
#define RELAYOUT_DRAWN_TRACE_TEST_PTX_ ""
#define RELAYOUT_DRAWN_TRACE_PTX_ ""
#endif
#define RELAYOUT_DRAWN_HOOK_PTX_(TEST, TRACE)     \
  "{\n\t"                                        \
  ".reg .pred %%rl_p, %%rl_q;\n\t"               \
  ".reg .b32 %%rl_h, %%rl_te;\n\t"               \
  "setp.eq.u32 %%rl_p, %0, 0;\n\t"               \
  "@%%rl_p bra RL_DONE;\n\t" TEST                \
  "and.b32 %%rl_h, %5, 1;\n\t"                   \
  "setp.ne.u32 %%rl_p, %%rl_h, 0;\n\t"           \
  "@%%rl_p bra RL_DONE;\n\t"                     \
  "or.b32 %%rl_h, %5, 1;\n\t" RELAYOUT_CALL_PTX_("%1") \
  TRACE "RL_DONE:\n\t"                           \
  "}"
  const unsigned call = (unsigned)(on & __rl_active());
  if constexpr (Kind == 1)
    asm volatile(RELAYOUT_DRAWN_HOOK_PTX_("", "")::"r"(call), "r"(id), "l"(a), "r"(gate), "l"(slow), "r"(draw));
  else
    asm volatile(RELAYOUT_DRAWN_HOOK_PTX_(RELAYOUT_DRAWN_TRACE_TEST_PTX_, RELAYOUT_DRAWN_TRACE_PTX_)::"r"(call),
                 "r"(id), "l"(a), "r"(gate), "l"(slow), "r"(draw));
#undef RELAYOUT_DRAWN_HOOK_PTX_
#undef RELAYOUT_DRAWN_TRACE_TEST_PTX_
#undef RELAYOUT_DRAWN_TRACE_PTX_
#endif
}
#endif

#if (RELAYOUT_TRACE_CAPACITY) > 0
// Whether warp `w` of a classifying block traces, decided by its first lane on entry, which also
// gives a traced warp its region: the launch's first RELAYOUT_TRACE_WARPS_ classifying warps in
// grid order (its first classifying blocks, those the GPU starts first), each with the region of
// its rank. Decided at entry, it costs the warps that do not trace nothing: when the first warps to
// reach an access took the regions, every classifying warp called the classifier at its first
// hook to ask, through a global atomic on one counter per launch (the rasterizer measured 1.68x
// that way, 1.53x this way, with the same picks on it and on every sample).
static __device__ bool __rl_trace_enter(unsigned w) {
  const unsigned long long step = __rl_grid_block_step(__rl_block_period(__rl_grid_blocks()), RELAYOUT_BLOCK_FRONT);
  const unsigned long long perBlock = __rl_warps_per_block();
  const unsigned long long block = __rl_divide(__rl_block_index(), step);  // among the classifying blocks
  if (block >= (RELAYOUT_TRACE_WARPS_)) return false;
  const unsigned long long rank = block * perBlock + w;
  if (rank >= (RELAYOUT_TRACE_WARPS_)) return false;
  const int slot = __rl_trace_slot(__rl_grid_id());
  if (slot < 0) return false;
  const unsigned long long start =
      (unsigned long long)__rl_kernel_row() * (RELAYOUT_TRACE_SLICE_) +
      ((unsigned long long)slot * (RELAYOUT_TRACE_WARPS_) + rank) * (RELAYOUT_TRACE_REGION_);
  __rl_warp_words_t& words = __rl_warp_words;
  words.traceCursor[w] = 0;  // no record taken, no access recorded
  words.traceStart[w] = (unsigned)start;
  // The block's words: every warp that traces stores the same.
  words.traceRecords = __cvta_generic_to_global(__rl_trace_records);
  words.traceDropped = __cvta_generic_to_global(&__rl_trace_dropped[__rl_kernel_row()]);
  words.traceGrid = __rl_grid_id();
  words.traceWarps = (unsigned)(__rl_block_index() * perBlock);
  words.traceRow = __rl_kernel_row();
  words.traceRoom = (unsigned)(RELAYOUT_TRACE_REGION_);
  return true;
}
#endif

// Called by the first lane of warp `w` of a block that may classify, on entry: whether the warp
// traces (when `on`, the block classifies); the hooks read the answer from its trace state.
static __device__ __forceinline__ void __rl_trace_open(unsigned w, bool on) {
#if (RELAYOUT_TRACE_CAPACITY) > 0
  if (on && __rl_trace_enter(w)) __rl_warp_words.gate[w] = 0xFFFFFFFFu;  // open: each access reaches the trace
  else __rl_warp_words.traceCursor[w] = (RELAYOUT_TRACE_DEPTH) << 20;     // as if its trace were over
#else
  (void)w, (void)on;
#endif
}

// The first thread of a block that __rl_sampled_block chose decides whether it classifies (its
// launch is admitted), counts it at its launch's weight, and returns that weight (0: it does
// not). Block 0, always chosen, counts its launch's blocks for them all: an atomic per block on
// one counter made short kernels up to 2x slower. (The cap on the blocks a kernel classifies over the run, kept here before, counted per
// kernel, so one instance of a kernel template used it up for the others; __rl_sampled_block
// bounds each launch instead.)
static __device__ __noinline__ unsigned __rl_enter_block(unsigned kernel, unsigned instance) {
  unsigned weight = 1;
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
  const unsigned row = kernel * RELAYOUT_INSTANCE_ROWS_ +
                       (instance < RELAYOUT_INSTANCE_ROWS_ ? instance : RELAYOUT_INSTANCE_ROWS_ - 1);
  weight = __rl_admitted_launch(row, __rl_grid_id(), __rl_grid_blocks());
#else
  (void)instance;
#endif
  if (__rl_block_index() == 0) atomicAdd(&__rl_kernel_blocks[kernel * 2], __rl_grid_blocks());
  if (weight) atomicAdd(&__rl_kernel_blocks[kernel * 2 + 1], (unsigned long long)weight);
  return weight;
}
#endif

// Put first in the body of every kernel of the unit by the instrumenter, with the kernel's id (and, for
// a kernel template's instantiations, the index of the one that runs, for launch sampling).
// Every thread stores the same id, so no barrier is needed for it. Whether the block may classify
// is the same sum in every thread, and most blocks stop there; one that may takes one atomic to
// decide and a barrier to share the answer.
static __device__ __forceinline__ void __rl_enter(unsigned kernel, unsigned instance = 0) {
#ifdef __CUDA_ARCH__
  __rl_kernel_id = kernel;
  if (!__rl_sampled_block()) {  // the same in every thread of the block: no barrier needed
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
    __rl_block_on = 0;
#endif
    return;
  }
  const unsigned threadInBlock = __rl_thread_index();
#if (RELAYOUT_EXEC_PERIOD) > 1
  // Every lane stores the same seed, so the warp needs no barrier before its first draw.
  __rl_warp_seed[(threadInBlock / 32) & 31] =
      (threadInBlock / 32 + 1) * 2654435761u ^ (unsigned)__rl_block_index();
#endif
#if RELAYOUT_SITE_SPLIT_
  const unsigned split = __rl_launch_site_split();
  __rl_site_split = split;  // every thread stores the same
#else
  const unsigned split = 0;
#endif
  (void)split;
#if RELAYOUT_EXEC_SAMPLING_
  if ((threadInBlock & 31) == 0) {
    const unsigned w = (threadInBlock / 32) & 31;
    __rl_warp_words.gate[w] = 0xFFFFFFFFu >> split;  // at the least period (a traced warp's opens below)
#if (RELAYOUT_TRACE_CAPACITY) > 0
    __rl_warp_words.drawGate[w] = 0xFFFFFFFFu >> split;
#endif
    __rl_warp_shift[w] = (unsigned char)split;
    __rl_warp_execs[w] = 0;
#if RELAYOUT_TIME_RULE_
    const unsigned now = __rl_clock();
    __rl_warp_start[w] = now;
    __rl_warp_spent[w] = 0;
#endif
#if RELAYOUT_TIME_RULE_
    __rl_warp_last[w] = now;
#endif
#if RELAYOUT_SITE_SPLIT_
    const unsigned long long others = ~__rl_site_subset(w, split);
#else
    const unsigned long long others = 0;
#endif
    __rl_warp_seen[0][w] = others | others << 32;
    __rl_warp_seen[1][w] = others | others << 32;
    for (unsigned row = 2; row < 2 + RELAYOUT_ROUND_SLOTS_ / 2; ++row) __rl_warp_seen[row][w] = 0;  // no round yet
#if RELAYOUT_ITERATION_DRAWS_
    __rl_warp_draw[w] = 1;
#endif
#if RELAYOUT_LOOP_PREFIXES_
    __rl_warp_scale[w] = 1;
    __rl_warp_scale_loop[w] = 0;
#endif
  }
#endif
#if (RELAYOUT_SAMPLE_LAUNCHES) > 0
  if (threadInBlock == 0) __rl_block_on = __rl_enter_block(kernel, instance);
  __syncthreads();  // also orders the warps' state above before any hook
#if (RELAYOUT_TRACE_CAPACITY) > 0
  // Only a launch admitted to classify takes one of the trace's launch slots; the warp's other lanes
  // see its trace state and gate after the __syncwarp.
  const unsigned entered = __activemask();  // every lane of the warp: a kernel body starts converged
  if ((threadInBlock & 31) == 0) __rl_trace_open((threadInBlock / 32) & 31, __rl_block_on != 0);
  __syncwarp(entered);
#endif
#else
  const unsigned entered = __activemask();  // every lane of the warp: a kernel body starts converged
  if ((threadInBlock & 31) == 0) __rl_trace_open((threadInBlock / 32) & 31, true);
  __syncwarp(entered);
  if (threadInBlock == 0) __rl_enter_block(kernel, instance);
  // Lane 0 of warp 0 took the branch above: without this the other lanes may reach the first hooks
  // before it, and the warp's access there reach the classifier in two groups (31 lanes, then
  // one), which a split launch counted twice (attribution.cu under --site-warps: 23% high).
  __syncwarp(entered);
#endif
#else
  (void)kernel;
  (void)instance;
#endif
}

// Plain clones (runtime/README.md): the instrumenter writes beside each device function a copy of
// its original text named NAME__rl_plain. A host launch that would classify nothing runs the
// kernel's copy, and in a launch that classifies, the blocks that do not branch at entry to the
// original body: what does not count runs the code the user wrote, with its registers and timing.
static __device__ __forceinline__ bool __rl_plain_block() {
#ifdef __CUDA_ARCH__
  return !__rl_active();
#else
  return false;
#endif
}

// First in a kernel's copy that still calls hooked functions (a constructor or an operator the
// copy could not rename): their hooks then see a block that does not classify.
static __device__ __forceinline__ void __rl_plain_enter() {
#if defined(__CUDA_ARCH__) && (RELAYOUT_SAMPLE_LAUNCHES) > 0
  __rl_block_on = 0;
#endif
}

// Launches that run instrumented: the first RELAYOUT_SAMPLE_LAUNCHES of each kernel (and of each
// template instantiation), the few later ones whose grid grew and the checkpoints
// (__rl_admitted_launch); 0: all.
#if (RELAYOUT_SAMPLE_LAUNCHES) == 0
#define RELAYOUT_HOOKED_LAUNCHES_ 0u
#else  // only classifying blocks trace: a later launch would run hooked and record nothing
#define RELAYOUT_HOOKED_LAUNCHES_ (unsigned)(RELAYOUT_SAMPLE_LAUNCHES)
#endif

// Per kernel row, blocks run by the launches of its plain copy (the profile's blocks run include
// them); and the blocks of the launch being configured, from its grid (__rl_grid).
static unsigned long long __rl_plain_blocks[RELAYOUT_KERNEL_ROWS_];
static thread_local unsigned long long __rl_launch_blocks = 0;

static __host__ void __rl_count_plain_launch(unsigned kernel, unsigned long long blocks) {
#if (RELAYOUT_NUM_KERNELS) == 0  // no comparison to warn about in a unit without kernels (-Werror builds)
  const unsigned row = 0;
  (void)kernel;
#else
  const unsigned row = kernel < (RELAYOUT_NUM_KERNELS) ? kernel : (RELAYOUT_NUM_KERNELS);
#endif
  __atomic_fetch_add(&__rl_plain_blocks[row], blocks, __ATOMIC_RELAXED);
}

// Wraps a launch's grid, `K<<<__rl_grid(G), B>>>`: the configuration is evaluated before the
// callee, so __rl_pick knows how many blocks a plain launch runs.
template <class Grid>
static __host__ Grid __rl_grid(const Grid& grid) {
  const dim3 d(grid);
  __rl_launch_blocks = (unsigned long long)d.x * d.y * d.z;
  return grid;
}

// Which kernel a launch runs, `__rl_pick(ID, K, K__rl_plain)<<<...>>>`: the instrumented one while
// the runtime admits launches to classify, else the plain copy, whose blocks are counted here.
template <class Kernel>
static __host__ Kernel* __rl_pick(unsigned kernel, Kernel* hooked, Kernel* plain) {
  const unsigned long long blocks = __rl_launch_blocks;
  __rl_launch_blocks = 0;
  if ((RELAYOUT_HOOKED_LAUNCHES_) == 0 || blocks == 0 ||
      relayout_rt_launch_hooked_grid((const void*)hooked, RELAYOUT_HOOKED_LAUNCHES_, RELAYOUT_CHECKPOINT_LAUNCHES,
                                     blocks))
    return hooked;
  __rl_count_plain_launch(kernel, blocks);
  return plain;
}

// The pick of a kernel that reaches no hook (no access, no loop, no call that may reach one): it
// has nothing to classify, and its instrumented entry would still cost every block the sampling
// decision and the hooked body's registers, so every launch runs the copy.
template <class Kernel>
static __host__ Kernel* __rl_pick_plain(unsigned kernel, Kernel* hooked, Kernel* plain) {
  const unsigned long long blocks = __rl_launch_blocks;
  __rl_launch_blocks = 0;
  if (blocks == 0) return hooked;  // a grid __rl_grid did not see: as __rl_pick does
  __rl_count_plain_launch(kernel, blocks);
  return plain;
}

// Put first in every loop body of device code by the instrumenter: counts the body's executions.
static __host__ __device__ __forceinline__ void __rl_loop(unsigned id) {
#ifdef __CUDA_ARCH__
  __rl_hook_call<1>(id < RELAYOUT_LOOP_ROWS_, __rl_count_loop, id, 0);
#else
  (void)id;
#endif
}

// Put first in the body of an innermost loop by the instrumenter (docs/formats.md, "Sampling"):
// draws whether the warp runs this iteration's hooks (where __rl_loop counts it). 3: it does not,
// and every hook of the iteration, in the body and in what it calls, skips at once: one draw per
// iteration rather than one per access. Even: the draw's hash, put in force (__rl_draw_scope) for
// the iteration's accesses, each classified when the hash passes the warp's period at that access,
// at its weight, unbiased since the period only grows within an iteration (without a time rule).
static __host__ __device__ __forceinline__ unsigned __rl_iteration(unsigned id) {
#ifdef __CUDA_ARCH__
#if RELAYOUT_ITERATION_DRAWS_
  // Without a branch, as the hooks are: a branch at the top of the body let the compiler move the
  // user's arithmetic (sph's computeDensity gained a multiply; ptx-arithmetic.test).
  // Every iteration draws afresh, however its lanes arrive: a lane that came late and kept the
  // draw it found would keep an old one in force for good. Which draw an access meets does not
  // bias it: any passes one in 2^s, at weight 2^s.
  const unsigned w = (__rl_thread_index() / 32) & 31;
  // The loop's first iteration in the warp is drawn whole (0, at the split's weight), as a hook's
  // first execution is, so that accesses made once per thread inside a loop keep their exact
  // counts; unless the split leaves it to other warps (its pending bit): then not at all.
  unsigned long long& seen = __rl_warp_seen[1][w];
  const unsigned long long bit = 1ull << (id & 31), known = *(volatile unsigned long long*)&seen;
  const bool pending = (known & bit << 32) != 0, first = (known & bit) == 0;
  seen = (known | bit) & ~(bit << 32);
  // Drawn by the count rule's period, not the gate: a warp that traces keeps its gate open, and
  // drawing every iteration for its trace made raytrace's and broadphase's kernels 2x slower.
  const unsigned shift = *(volatile unsigned char*)&__rl_warp_shift[w];
  const unsigned h = (__rl_clock() * 2654435761u) & ~1u;  // one clock read for a converged warp
  const unsigned drawn = h != 0 && h <= (0xFFFFFFFFu >> shift) ? h : 3u;
  return !__rl_active() ? 1u : pending ? 3u : first ? 0u : drawn;
#else
  (void)id;
  return __rl_active() ? 0u : 1u;
#endif
#else
  (void)id;
  return 1u;
#endif
}

// Declared first in a drawn loop body: puts the iteration's draw in force until
// the body is left, however it is (a `continue`, `break` or `return` too).
struct __rl_draw_scope {
  __host__ __device__ explicit __rl_draw_scope(unsigned draw) {
#if defined(__CUDA_ARCH__) && RELAYOUT_ITERATION_DRAWS_
    __rl_warp_draw[(__rl_thread_index() / 32) & 31] = draw;
#else
    (void)draw;
#endif
  }
  // After the iteration, hooks draw on their own again (1), as outside any drawn loop.
  __host__ __device__ ~__rl_draw_scope() {
#if defined(__CUDA_ARCH__) && RELAYOUT_ITERATION_DRAWS_
    __rl_warp_draw[(__rl_thread_index() / 32) & 31] = 1u;
#endif
  }
  __rl_draw_scope(const __rl_draw_scope&) = delete;
  __rl_draw_scope& operator=(const __rl_draw_scope&) = delete;
};

#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
// Iterations of `for (VAR = from; VAR OP bound; VAR += step)`, OP by its code (CountedHeader), or 0
// when the step goes the other way; at most 2^32 - 1. Only weights depend on it: the loop itself
// runs as written whatever this says.
static __device__ unsigned __rl_trips(long long from, long long bound, long long step, unsigned comparison) {
  const bool up = comparison < 2;
  if (up ? step <= 0 : step >= 0) return 0;
  const unsigned long long distance = up ? (unsigned long long)bound - (unsigned long long)from
                                         : (unsigned long long)from - (unsigned long long)bound;
  const bool inclusive = comparison & 1u;
  if (up ? (inclusive ? bound < from : bound <= from) : (inclusive ? bound > from : bound >= from)) return 0;
  const unsigned long long stride = up ? (unsigned long long)step : 0ull - (unsigned long long)step;
  const unsigned long long trips = inclusive ? distance / stride + 1 : (distance + stride - 1) / stride;
  return trips > 0xFFFFFFFFull ? 0xFFFFFFFFu : (unsigned)trips;
}

// Whether the loop runs at least 2 * RELAYOUT_COUNTED_PREFIX iterations or so (the prefix's least
// weight, 2), without dividing by the step.
static __device__ __forceinline__ bool __rl_long_loop(long long from, long long bound, long long step,
                                                      unsigned comparison) {
  const bool up = comparison < 2;
  if (up ? step <= 0 || bound <= from : step >= 0 || bound >= from) return false;
  const unsigned long long distance = up ? (unsigned long long)bound - (unsigned long long)from
                                         : (unsigned long long)from - (unsigned long long)bound;
  const unsigned long long stride = up ? (unsigned long long)step : 0ull - (unsigned long long)step;
  return (RELAYOUT_COUNTED_PREFIX) > 0 && distance / (2ull * (RELAYOUT_COUNTED_PREFIX)) >= stride;
}
#endif

// Declared around an innermost counted loop by the instrumenter (LoopPrefixes): a classifying warp
// runs the loop's first iterations hooked and, from the prefix's end on, a plain copy of its body
// written in the loop (`if (p.tail(...)) { for (; COND; INC) BODY break; }`). The prefix's
// length and weight come from the warp's largest trip count M when the loop starts: with fewer
// than RELAYOUT_COUNTED_PREFIX * 2 iterations every one runs hooked, else with the weight w = M /
// RELAYOUT_COUNTED_PREFIX and L = M / w, both rounded to the nearest, the first L iterations run
// hooked, each classified execution counted w times: the counts stand for w * L iterations, within
// w / 2 of M (1 / (2 * RELAYOUT_COUNTED_PREFIX) of it), over or under. The weight holds for the
// whole prefix: lanes that a `continue` lets run ahead of the others would otherwise change it
// under the hooks of the lanes behind. The length is one for the warp, so that its lanes leave the
// prefix together; a loop whose lanes' trip counts differ by more than a sixteenth runs hooked
// throughout (one weight could not stand for them).
// The lanes that started the loop together enter the copy together: the hooked iterations may
// leave them apart (a `continue` taken by some, the classifier's calls), and lanes that reach the
// copy apart run all of it apart, each group issuing every load again (kmeans' updateCentroids ran
// its copy in 3.8 groups per warp, 8x a plain launch). Every one of them reaches the copy: the
// instrumenter splits only loops without `break`, `return` or `goto`, and the prefix is shorter than
// every lane's trip count.
struct __rl_prefix {
  unsigned done = 0, length = 0xFFFFFFFFu, loop = 0, lanes = 0;
  // Called first in every iteration with the loop variable's value there, the bound, the step and
  // the comparison: whether this iteration and the rest run the plain copy.
  __host__ __device__ bool tail(unsigned id, long long at, long long bound, long long step, unsigned comparison) {
#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
    if (done++ == 0) {  // the first iteration: the prefix's length and weight
      if (!__rl_active()) return true;  // a block that classifies nothing runs it as written
      // A vote first, without a division: most loops are short, and some start in every iteration
      // of an outer loop (options' binomial tree: two reductions and a division there cost 1.5x).
      const unsigned mask = __activemask();
      if (!__any_sync(mask, __rl_long_loop(at, bound, step, comparison))) return false;
      const unsigned trips = __rl_trips(at, bound, step, comparison);
      const unsigned most = __reduce_max_sync(mask, trips), least = __reduce_min_sync(mask, trips);
      // (Not reached with no counted prefix: no lane's loop is long then.)
      const unsigned prefix = (RELAYOUT_COUNTED_PREFIX) > 0 ? (RELAYOUT_COUNTED_PREFIX) : 1;
      const unsigned weight = (most + prefix / 2) / prefix;
      if (weight >= 2 && most - least <= most / 16) {
        const unsigned w = (__rl_thread_index() / 32) & 31;
        length = (most + weight / 2) / weight;
        loop = id + 1;
        lanes = mask;
        *(volatile unsigned*)&__rl_warp_scale[w] = weight;
        *(volatile unsigned*)&__rl_warp_scale_loop[w] = loop;
      }
    }
    if (done <= length) return false;
    if (lanes) __syncwarp(lanes);  // once: the copy runs the rest of the loop
    return true;
#else
    (void)id, (void)at, (void)bound, (void)step, (void)comparison;
    return false;
#endif
  }
  // The weight ends with the loop, unless a later loop's prefix has taken the warp's weight.
  __host__ __device__ ~__rl_prefix() {
#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
    const unsigned w = (__rl_thread_index() / 32) & 31;
    if (loop && *(volatile unsigned*)&__rl_warp_scale_loop[w] == loop) {
      *(volatile unsigned*)&__rl_warp_scale[w] = 1;
      *(volatile unsigned*)&__rl_warp_scale_loop[w] = 0;
    }
#endif
  }
};

// Declared around an innermost loop that is not counted (LoopPrefixes): each iteration asks step()
// whether it runs hooked (else a plain copy of its body, condition and increment). The first
// RELAYOUT_LOOP_PREFIX iterations do, with weight 1; then every 2nd of the next 2 *
// RELAYOUT_LOOP_PREFIX, with weight 2; every 4th of the next 4 * RELAYOUT_LOOP_PREFIX, with weight
// 4; and so on: about RELAYOUT_LOOP_PREFIX * (1 + log2(trips / RELAYOUT_LOOP_PREFIX)) hooked
// iterations, each counted for the iterations it stands for, a lane's count over by less than one
// stride when its loop ends (at most 2 / RELAYOUT_LOOP_PREFIX of its trip count). The lanes of a
// warp that run an iteration have run as many before it, so they decide alike. The warp's weight
// holds only while a hooked iteration runs its hooks (a __rl_thin_scope in the body, weigh() to
// checked() in the condition that follows it): a lane whose loop has ended leaves the weight of
// the others alone.
struct __rl_thin {
  unsigned at = 0, next = 0, stride = 1, weight = 1, left = RELAYOUT_LOOP_PREFIX > 0 ? RELAYOUT_LOOP_PREFIX : 1;
  bool on = false;
  __host__ __device__ __rl_thin() {
#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
    if (!__rl_active()) next = 0xFFFFFFFFu;  // a block that classifies nothing runs it as written
#endif
  }
  // Whether this iteration runs hooked, as hooked() says until the next step.
  __host__ __device__ bool step() {
#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
    on = at++ == next;
    if (!on) return false;
    weight = stride;
    next += stride;
    if (--left == 0) {
      stride = stride < 0x40000000u ? stride * 2 : stride;
      left = RELAYOUT_LOOP_PREFIX;
    }
    return true;
#elif defined(__CUDA_ARCH__)
    return on = true;  // without prefixes every iteration runs hooked
#else
    return false;  // the host runs no hooks
#endif
  }
  __host__ __device__ bool hooked() const { return on; }
  // The last hooked iteration's weight in force for the warp's hooks, and back to 1 (weight-1
  // iterations leave the warp's weight, 1, alone).
  __host__ __device__ void weigh() const { put(weight); }
  __host__ __device__ void unweigh() const { put(1); }
  // The hooked condition's value, the weight taken back.
  __host__ __device__ bool checked(bool condition) const {
    unweigh();
    return condition;
  }

 private:
  __host__ __device__ void put(unsigned w) const {
#if defined(__CUDA_ARCH__) && RELAYOUT_LOOP_PREFIXES_
    if (weight > 1) *(volatile unsigned*)&__rl_warp_scale[(__rl_thread_index() / 32) & 31] = w;
#else
    (void)w;
#endif
  }
};

// Declared first in a thinned loop's hooked body: the iteration's weight in force until the body is
// left, however it is (a `continue`, `break` or `return` too).
struct __rl_thin_scope {
  const __rl_thin& loop;
  __host__ __device__ explicit __rl_thin_scope(const __rl_thin& thin) : loop(thin) { loop.weigh(); }
  __host__ __device__ ~__rl_thin_scope() { loop.unweigh(); }
  __rl_thin_scope(const __rl_thin_scope&) = delete;
  __rl_thin_scope& operator=(const __rl_thin_scope&) = delete;
};

// Returns p unchanged, so that (*__rl_site(ID, &(EXPR))) is the same lvalue as EXPR. Only lanes
// whose address is in global memory classify: a member function hooked on `this` also runs on
// local and shared objects, which are not the arrays whose layout relayout changes.
template <class T>
static __host__ __device__ __forceinline__ T* __rl_site(unsigned id, T* p) {
#ifdef __CUDA_ARCH__
  __rl_hook_call<0>((id < RELAYOUT_SITE_ROWS_) & (__isGlobal((const void*)p) != 0), __rl_classify, id,
                    reinterpret_cast<unsigned long long>(p));
#else
  (void)id;
#endif
  return p;
}

// The same for a site that no loop of its function encloses, `(*__rl_site_once(ID, &(EXPR)))`: a
// thread runs it about once per call of the function, and the warp's first round of it (each
// lane's first execution, in however many groups its lanes come) is classified whole, at the
// split's weight, rather than its first group only (__rl_first_round).
template <class T>
static __host__ __device__ __forceinline__ T* __rl_site_once(unsigned id, T* p) {
#ifdef __CUDA_ARCH__
  __rl_hook_call<0, true>((id < RELAYOUT_SITE_ROWS_) & (__isGlobal((const void*)p) != 0), __rl_classify, id,
                          reinterpret_cast<unsigned long long>(p));
#else
  (void)id;
#endif
  return p;
}

// The same hooks for an access (or a loop count) written in the body of a loop drawn by iteration,
// `(*__rl_site_in(DRAW, ID, &(EXPR)))` with DRAW the iteration's draw (__rl_iteration).
template <class T>
static __host__ __device__ __forceinline__ T* __rl_site_in(unsigned draw, unsigned id, T* p) {
#if defined(__CUDA_ARCH__) && RELAYOUT_ITERATION_DRAWS_
  __rl_hook_call_drawn<0>((id < RELAYOUT_SITE_ROWS_) & (__isGlobal((const void*)p) != 0), draw,
                       __rl_classify, id, reinterpret_cast<unsigned long long>(p));
  return p;
#else
  (void)draw;
  return __rl_site(id, p);
#endif
}
template <class T, class... Offsets>
static __host__ __device__ __forceinline__ T* __rl_struct_in(unsigned draw, T* p, unsigned first, Offsets... offsets) {
#ifdef __CUDA_ARCH__
  unsigned id = first;
  ((void)__rl_site_in(draw, id++, (const char*)p + offsets), ...);
#else
  (void)draw, (void)first;
#endif
  return p;
}
static __host__ __device__ __forceinline__ void __rl_loop_in(unsigned draw, unsigned id) {
#if defined(__CUDA_ARCH__) && RELAYOUT_ITERATION_DRAWS_
  __rl_hook_call_drawn<1>(id < RELAYOUT_LOOP_ROWS_, draw, __rl_count_loop, id, 0);
#else
  (void)draw;
  __rl_loop(id);
#endif
}

// A whole element copied or assigned moves every field: (*__rl_struct(&(EXPR), FIRST, OFFSETS...))
// classifies field k (at byte offset OFFSETS[k]) as site FIRST + k, evaluates EXPR once and yields
// the same lvalue, so the copy itself is unchanged.
template <class T, class... Offsets>
static __host__ __device__ __forceinline__ T* __rl_struct(T* p, unsigned first, Offsets... offsets) {
#ifdef __CUDA_ARCH__
  unsigned id = first;
  ((void)__rl_site(id++, (const char*)p + offsets), ...);
#else
  (void)first;
#endif
  return p;
}
template <class T, class... Offsets>
static __host__ __device__ __forceinline__ T* __rl_struct_once(T* p, unsigned first, Offsets... offsets) {
#ifdef __CUDA_ARCH__
  unsigned id = first;
  ((void)__rl_site_once(id++, (const char*)p + offsets), ...);
#else
  (void)first;
#endif
  return p;
}

// Host code from here on (nvcc's device passes see it too, and generate nothing for it).
// A unit the host compiler builds (a .cpp file nvcc hands to g++) has sites in the headers it
// includes but no device copy of its counters: nothing of it ran on the GPU, so the host copy,
// all zeros, is read instead of asking the runtime for a symbol it does not know.
#if defined(__CUDACC__)
#define RELAYOUT_FROM_SYMBOL_(dst, symbol, bytes) cudaMemcpyFromSymbol((dst), (symbol), (bytes))
#else
#define RELAYOUT_FROM_SYMBOL_(dst, symbol, bytes) (std::memcpy((dst), &(symbol), (bytes)), cudaSuccess)
#endif
// Reads this unit's counters on the current device, summed over the stripes, per (site, kernel
// row); with perKernel false, also over the kernel rows (one row per site).
static int __rl_fetch_rows(unsigned long long* out, unsigned numSites, bool perKernel) {
  const size_t kernelRows = RELAYOUT_KERNEL_ROWS_, columns = RELAYOUT_COUNTER_COLUMNS;
  const size_t stripeWords = (size_t)RELAYOUT_SITE_ROWS_ * kernelRows * columns;
  unsigned long long* all = (unsigned long long*)std::malloc(sizeof(__rl_counters));
  if (!all) return (int)cudaErrorMemoryAllocation;
  const cudaError_t err = RELAYOUT_FROM_SYMBOL_(all, __rl_counters, sizeof(__rl_counters));
  if (err == cudaSuccess) {
    const size_t sites = numSites < RELAYOUT_SITE_ROWS_ ? numSites : RELAYOUT_SITE_ROWS_;
    const size_t outRows = perKernel ? kernelRows : 1;
    for (size_t i = 0; i < sites * outRows * columns; ++i) out[i] = 0;
    for (size_t s = 0; s < (RELAYOUT_COUNTER_STRIPES); ++s)
      for (size_t site = 0; site < sites; ++site)
        for (size_t k = 0; k < kernelRows; ++k)
          for (size_t c = 0; c < columns; ++c)
            out[(site * outRows + (perKernel ? k : 0)) * columns + c] +=
                all[s * stripeWords + (site * kernelRows + k) * columns + c];
  }
  std::free(all);
  return (int)err;
}
static int __rl_fetch(unsigned long long* out, unsigned numSites) { return __rl_fetch_rows(out, numSites, false); }
static int __rl_fetch_kernel_sites(unsigned long long* out, unsigned numSites) {
  return __rl_fetch_rows(out, numSites, true);
}

// Per kernel id (and the unknown row): blocks run, blocks classified.
static int __rl_fetch_kernel_blocks(unsigned long long* out, unsigned) {
  return (int)RELAYOUT_FROM_SYMBOL_(out, __rl_kernel_blocks, sizeof(__rl_kernel_blocks));
}

// Hands the host one run of whole warp accesses: each traced warp's region holds whole groups up
// to its first zero record, so the regions' filled parts are moved together, and a zero record
// ends them. `requested` counts them and the dropped ones.
static int __rl_fetch_trace(RelayoutTraceRecord* out, unsigned long long* requested) {
#if (RELAYOUT_TRACE_CAPACITY) > 0
  unsigned long long dropped[RELAYOUT_KERNEL_ROWS_];
  cudaError_t err = RELAYOUT_FROM_SYMBOL_(dropped, __rl_trace_dropped, sizeof dropped);
  if (err == cudaSuccess) err = RELAYOUT_FROM_SYMBOL_(out, __rl_trace_records, sizeof(__rl_trace_records));
  if (err != cudaSuccess) return (int)err;
  size_t kept = 0;
  *requested = 0;
  const size_t regions = (size_t)(RELAYOUT_TRACE_WARPS_) * RELAYOUT_TRACE_SLOTS_;
  for (size_t row = 0; row < RELAYOUT_KERNEL_ROWS_; ++row) {
    *requested += dropped[row];
    for (size_t region = 0; region < regions; ++region) {
      const size_t start = row * (RELAYOUT_TRACE_SLICE_) + region * (RELAYOUT_TRACE_REGION_);
      size_t whole = 0;
      while (whole < (RELAYOUT_TRACE_REGION_) && out[start + whole].group != 0 &&
             whole + out[start + whole].group <= (RELAYOUT_TRACE_REGION_))
        whole += out[start + whole].group;
      if (whole && start != kept) std::memmove(&out[kept], &out[start], whole * sizeof *out);
      kept += whole;
    }
  }
  *requested += kept;
  if (kept < (RELAYOUT_TRACE_CAPACITY)) std::memset(&out[kept], 0, sizeof *out);
  return 0;
#else
  (void)out;
  *requested = 0;
  return 0;
#endif
}

// Reads this unit's loop counters on the current device, summing the stripes.
static int __rl_fetch_loops(unsigned long long* out, unsigned numLoops) {
  unsigned long long* all = (unsigned long long*)std::malloc(sizeof(__rl_loop_counters));
  if (!all) return (int)cudaErrorMemoryAllocation;
  const cudaError_t err = RELAYOUT_FROM_SYMBOL_(all, __rl_loop_counters, sizeof(__rl_loop_counters));
  if (err == cudaSuccess) {
    const unsigned n = numLoops < RELAYOUT_LOOP_ROWS_ ? numLoops : RELAYOUT_LOOP_ROWS_;
    for (unsigned i = 0; i < n; ++i) {
      unsigned long long sum = 0;
      for (size_t s = 0; s < (RELAYOUT_COUNTER_STRIPES); ++s) sum += all[s * RELAYOUT_LOOP_ROWS_ + i];
      out[i] = sum;
    }
  }
  std::free(all);
  return (int)err;
}

// The instrumenter lists the unit's kernels and what the trace writer needs of each site.
#ifndef RELAYOUT_KERNEL_NAMES
#define RELAYOUT_KERNEL_NAMES ""
#endif
static const char* const __rl_kernel_names[] = {RELAYOUT_KERNEL_NAMES};
#ifdef RELAYOUT_SITE_INFO
static const RelayoutSiteInfo __rl_site_info[] = {RELAYOUT_SITE_INFO};
#define RELAYOUT_SITE_INFO_PTR_ __rl_site_info
#else  // units instrumented by hand (the runtime's self-tests)
#define RELAYOUT_SITE_INFO_PTR_ nullptr
#endif

#if (RELAYOUT_NUM_FUNCTIONS) > 0 && (RELAYOUT_NUM_SITES) > 0 && defined(RELAYOUT_FUNCTION_NAMES) && \
    defined(RELAYOUT_FUNCTION_HASHES) && defined(RELAYOUT_SITE_FUNCTIONS)
static const char* const __rl_function_names[] = {RELAYOUT_FUNCTION_NAMES};
static const char* const __rl_function_hashes[] = {RELAYOUT_FUNCTION_HASHES};
static const unsigned __rl_site_functions[] = {RELAYOUT_SITE_FUNCTIONS};
static_assert(sizeof(__rl_function_names) / sizeof(__rl_function_names[0]) == (RELAYOUT_NUM_FUNCTIONS) &&
                  sizeof(__rl_function_hashes) / sizeof(__rl_function_hashes[0]) == (RELAYOUT_NUM_FUNCTIONS),
              "RELAYOUT_FUNCTION_NAMES and RELAYOUT_FUNCTION_HASHES need RELAYOUT_NUM_FUNCTIONS entries");
static_assert(sizeof(__rl_site_functions) / sizeof(__rl_site_functions[0]) == (RELAYOUT_NUM_SITES),
              "RELAYOUT_SITE_FUNCTIONS needs one entry per site");
#define RELAYOUT_FUNCTIONS_INIT_ (unsigned)(RELAYOUT_NUM_FUNCTIONS), __rl_function_names, __rl_function_hashes, \
                                 __rl_site_functions
#else
#define RELAYOUT_FUNCTIONS_INIT_ 0u, nullptr, nullptr, nullptr
#endif

static const RelayoutUnitDesc __rl_unit = {RELAYOUT_ABI_VERSION,
                                           RELAYOUT_UNIT_SOURCE,
                                           RELAYOUT_UNIT_SHA256,
                                           (unsigned)(RELAYOUT_NUM_SITES),
                                           (unsigned)(RELAYOUT_BLOCK_PERIOD),
                                           __rl_fetch,
                                           (unsigned)(RELAYOUT_NUM_LOOPS),
                                           __rl_fetch_loops,
                                           (unsigned)(RELAYOUT_NUM_KERNELS),
                                           __rl_kernel_names,
                                           __rl_fetch_kernel_sites,
                                           RELAYOUT_SITE_INFO_PTR_,
                                           (unsigned long long)(RELAYOUT_TRACE_CAPACITY),
                                           (unsigned)(RELAYOUT_TRACE_LAUNCHES),
                                           __rl_fetch_trace,
                                           (unsigned)(RELAYOUT_SAMPLE_LAUNCHES),
                                           __rl_fetch_kernel_blocks,
                                           (unsigned)(RELAYOUT_EXEC_PERIOD),
#if (RELAYOUT_TRACE_CAPACITY) > 0
                                           (unsigned)(RELAYOUT_TRACE_WARPS_),
#else
                                           0u,
#endif
                                           RELAYOUT_FUNCTIONS_INIT_,
                                           __rl_plain_blocks};
static const int __rl_registered __attribute__((unused)) = (relayout_rt_register_unit(&__rl_unit), 0);
