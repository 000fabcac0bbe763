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
