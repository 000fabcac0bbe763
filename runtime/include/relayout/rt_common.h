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

#ifdef __CUDACC__
#define RELAYOUT_HOST_DEVICE_ __host__ __device__
#else
#define RELAYOUT_HOST_DEVICE_
#endif

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
