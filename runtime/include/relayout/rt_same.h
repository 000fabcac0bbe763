// Whether two types are the same, as a constant expression usable in device code without the
// standard library: a hook in a function template picks its site by the template's arguments,
// `(__rl_same<EdgeType, ::Edge>::value ? ID_A : ID_B)`, where the instantiations reach different
// structs. Shared by the counting hooks (rt.cuh) and the no-op ones (rt_passthrough.h).
#pragma once

template <class A, class B>
struct __rl_same {
  static constexpr bool value = false;
};
template <class A>
struct __rl_same<A, A> {
  static constexpr bool value = true;
};
