// The hooks as no-ops, for a translation unit relayout did not instrument that includes a header
// it did (e.g. a host-only .cpp built beside an instrumented program): such a unit counts nothing.
#pragma once

#include "relayout/rt_common.h"

#if defined(__CUDACC__)
#define RELAYOUT_PASSTHROUGH_HD_ __host__ __device__ __forceinline__
#else
#define RELAYOUT_PASSTHROUGH_HD_ inline
#endif

template <class T>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_site(unsigned, T* p) {
  return p;
}
template <class T>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_site_once(unsigned, T* p) {
  return p;
}
template <class T, class... Offsets>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_struct(T* p, unsigned, Offsets...) {
  return p;
}
template <class T, class... Offsets>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_struct_once(T* p, unsigned, Offsets...) {
  return p;
}
template <class T>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_site_in(unsigned, unsigned, T* p) {
  return p;
}
template <class T, class... Offsets>
RELAYOUT_PASSTHROUGH_HD_ T* __rl_struct_in(unsigned, T* p, unsigned, Offsets...) {
  return p;
}
RELAYOUT_PASSTHROUGH_HD_ void __rl_loop(unsigned) {}
RELAYOUT_PASSTHROUGH_HD_ void __rl_loop_in(unsigned, unsigned) {}
RELAYOUT_PASSTHROUGH_HD_ unsigned __rl_iteration(unsigned) { return 1u; }
struct __rl_draw_scope {
  RELAYOUT_PASSTHROUGH_HD_ explicit __rl_draw_scope(unsigned) {}
};
struct __rl_prefix {
  RELAYOUT_PASSTHROUGH_HD_ bool tail(unsigned, long long, long long, long long, unsigned) { return false; }
};
struct __rl_thin {
  RELAYOUT_PASSTHROUGH_HD_ bool step() { return false; }
  RELAYOUT_PASSTHROUGH_HD_ bool hooked() const { return false; }
  RELAYOUT_PASSTHROUGH_HD_ void weigh() const {}
  RELAYOUT_PASSTHROUGH_HD_ bool checked(bool condition) const { return condition; }
};
struct __rl_thin_scope {
  RELAYOUT_PASSTHROUGH_HD_ explicit __rl_thin_scope(const __rl_thin&) {}
};
RELAYOUT_PASSTHROUGH_HD_ void __rl_enter(unsigned, unsigned = 0) {}
RELAYOUT_PASSTHROUGH_HD_ bool __rl_plain_block() { return false; }
RELAYOUT_PASSTHROUGH_HD_ void __rl_plain_enter() {}
template <class Grid>
inline Grid __rl_grid(const Grid& grid) {
  return grid;
}
template <class Kernel>
inline Kernel* __rl_pick(unsigned, Kernel* hooked, Kernel*) {
  return hooked;
}
