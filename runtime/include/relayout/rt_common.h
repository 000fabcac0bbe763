// What the counting hooks (rt.cuh) and the no-op ones (rt_passthrough.h) both declare.
#pragma once

// Whether two types are the same, as a constant expression usable in device code without the
// standard library: a hook in a function template picks its site by the template's arguments,
// `(__rl_same<EdgeType, ::Edge>::value ? ID_A : ID_B)`, where the instantiations reach different
// structs.
template <class A, class B>
struct __rl_same {
  static constexpr bool value = false;
};
template <class A>
struct __rl_same<A, A> {
  static constexpr bool value = true;
};

// The first parameter of a call operator's plain clone, which has no name to change:
// `operator()(__rl_plain_tag, ARGS)`, called from the other clones as `f(__rl_plain_tag{}, ARGS)`.
struct __rl_plain_tag {};

// A hooked kernel's class-type parameter that its body only reads (instrument/src/GridConstant.cpp):
// read where the launch put it. A kernel that calls the classifier otherwise copies such a
// parameter to its stack at entry, in every thread, where the original kernel did not.
#if defined(__CUDACC__) && defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 7))
#define __rl_grid_constant __grid_constant__
#else
#define __rl_grid_constant
#endif

#ifdef __CUDACC__
#define RELAYOUT_HOST_DEVICE_ __host__ __device__
#else
#define RELAYOUT_HOST_DEVICE_
#endif

// The leading zero bits of `v` > 0, on either side.
RELAYOUT_HOST_DEVICE_ inline int __rl_leading_zeros(unsigned long long v) {
#ifdef __CUDA_ARCH__
  return __clzll((long long)v);
#else
  return __builtin_clzll(v);
#endif
}

// Launch sampling (docs/formats.md, "Sampling"): after a kernel's first --sample-launches
// launches, up to RELAYOUT_GROWTH_LAUNCHES later ones classify too, each one whose grid has at
// least RELAYOUT_GROWTH_FACTOR times the blocks of the largest launch admitted before it. A program
// that first checks itself on a small problem (the sph sample: 14 blocks, then 7,502 per launch)
// was otherwise profiled on that problem alone. The host (which launch runs the instrumented
// kernel) and the device (which launch classifies) apply this one rule.
#define RELAYOUT_GROWTH_LAUNCHES 3
#define RELAYOUT_GROWTH_FACTOR 4
RELAYOUT_HOST_DEVICE_ inline bool __rl_launch_grew(unsigned long long largest, unsigned long long blocks) {
  return blocks / (RELAYOUT_GROWTH_FACTOR) >= largest && blocks > largest;
}

// Block sampling's period for a grid of `blocks` (docs/formats.md, "Sampling"): `period`
// (--sample-blocks), unless that gives fewer than `least` classifying blocks (--min-blocks) or more
// than `most` (--max-blocks; 0: no cap). Then a power of two, so that every block of the launch, the
// plain ones too, decides with a mask rather than a division (which, with its setup, doubled the
// instructions of a short kernel's plain warps): the largest not above blocks / least (least to
// 2 least blocks, or all of a grid smaller than least), or the smallest not below blocks / most
// (most / 2 to most blocks). The profile counts the blocks classified, so the scale stays exact.
RELAYOUT_HOST_DEVICE_ inline unsigned long long __rl_grid_block_period(unsigned long long blocks, unsigned period,
                                                                       unsigned least, unsigned most) {
  if (blocks < (unsigned long long)period * least) {
    const unsigned long long largest = blocks / least;
    return largest > 1 ? 1ull << (63 - __rl_leading_zeros(largest)) : 1;
  }
  if (most > 0 && blocks > (unsigned long long)period * most) {
    const unsigned long long smallest = (blocks + most - 1) / most;  // > 1 here
    return 1ull << (64 - __rl_leading_zeros(smallest - 1));
  }
  return period;
}

// `a / b`, by a shift when `b` is a power of two: a block period is a power of two unless it is
// the unit's own --sample-blocks, a constant the compiler divides by cheaply, and a 64-bit division
// by a value is a subroutine of about 70 instructions, here run by every thread at a kernel's entry.
RELAYOUT_HOST_DEVICE_ inline unsigned long long __rl_divide(unsigned long long a, unsigned long long b) {
  return (b & (b - 1)) == 0 ? a >> (63 - __rl_leading_zeros(b)) : a / b;
}

// How many blocks of a grid of `blocks` classify at block period `period`: ceil(blocks / period),
// wherever they sit.
RELAYOUT_HOST_DEVICE_ inline unsigned long long __rl_grid_classifying_blocks(unsigned long long blocks,
                                                                             unsigned long long period) {
  return __rl_divide(blocks + period - 1, period);
}

// Which blocks of a grid of `blocks` classify at block period `period`: ceil(blocks / period) of
// them, one in every `period / front` blocks (at least every block) from the grid's start, so
// within about its first 1 / `front` (--block-front; 1: one in `period` over the whole grid). The
// GPU starts blocks about in index order, and a launch lasts until its last classifying block has
// run, which takes several times as long as a plain one: spread to the grid's end, the last ones
// start as the plain blocks finish and the launch waits for them (the ray tracer's shading 2.1x its
// original on an H100); in the front they run beside the rest of the grid (1.2x).
RELAYOUT_HOST_DEVICE_ inline unsigned long long __rl_grid_block_step(unsigned long long period, unsigned front) {
  if (front <= 1) return period;
  return period > front ? __rl_divide(period, front) : 1;
}
RELAYOUT_HOST_DEVICE_ inline bool __rl_grid_block_classifies(unsigned long long index, unsigned long long blocks,
                                                             unsigned long long period, unsigned front) {
  const unsigned long long step = __rl_grid_block_step(period, front);
  const unsigned long long rank = __rl_divide(index, step);  // among the classifying blocks
  return rank * step == index && rank < __rl_grid_classifying_blocks(blocks, period);
}

// Checkpoint launches (`--checkpoint-launches K`, docs/formats.md, "Sampling"): after its first N
// launches a kernel also classifies those at ordinals C_j = N * 8 * 2^j (1-based, j < K), and
// C_j's counts stand for the launches since C_{j-1} (C_{-1} = N): weight C_j - C_{j-1}. A kernel
// launched once per time step whose work changes over the run (mc_transport's neutrons die) is
// otherwise profiled on its first steps alone; a long run adds a classified launch per doubling.
#define RELAYOUT_MAX_CHECKPOINTS 8
#define RELAYOUT_CHECKPOINT_FIRST 8
// Which of `count` checkpoints launch `ordinal` is (0, 1, ...) after `first` = N first launches,
// or -1.
RELAYOUT_HOST_DEVICE_ inline int __rl_checkpoint_index(unsigned first, unsigned count, unsigned long long ordinal) {
  unsigned long long at = (unsigned long long)first * (RELAYOUT_CHECKPOINT_FIRST);
  for (int j = 0; first > 0 && j < (int)count && j < (RELAYOUT_MAX_CHECKPOINTS); ++j, at *= 2)
    if (ordinal == at) return j;
  return -1;
}
// The launches checkpoint `j` stands for, its counts' weight.
RELAYOUT_HOST_DEVICE_ inline unsigned __rl_checkpoint_weight(unsigned first, unsigned j) {
  return j == 0 ? first * ((RELAYOUT_CHECKPOINT_FIRST) - 1) : (first * (RELAYOUT_CHECKPOINT_FIRST)) << (j - 1);
}
