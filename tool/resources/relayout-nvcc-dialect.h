// relayout's nvcc dialect for Clang. relayout hands this header to Clang with -include when it
// parses a CUDA source (after Clang's CUDA runtime wrapper); it is never part of what relayout
// writes. It declares what nvcc's own headers and front end give CUDA code and Clang's do not, so
// that code written for nvcc parses as nvcc reads it. docs/nvcc-dialect.md lists what it holds.
// The macros nvcc defines (__NVCC__, __CUDACC_VER_MAJOR__, ...) come with the command line.
#pragma once
#pragma clang system_header

#if defined(__CUDA__) && defined(__cplusplus)

// nvcc's front end answers these for its "extended" lambdas (CCCL asks them under __NVCC__ and
// --extended-lambda). Clang's device lambdas are ordinary closure types, so none is one.
#define __nv_is_extended_device_lambda_closure_type(...) false
#define __nv_is_extended_host_device_lambda_closure_type(...) false
#define __nv_is_extended_device_lambda_with_preserved_return_type(...) false

// nvcc's crt/math_functions.hpp makes min and max (every overload) and umin...ullmax callable in
// host code; Clang's CUDA headers declare them for the device only, so host code such as
// `max(abs(a - b), e)` or `min(i, j)` finds no function. The host versions, with nvcc's overloads
// and nvcc's results (mixed signed/unsigned compares as unsigned, float with double as double):
#define RELAYOUT_NVCC_MINMAX(T, A, B)                                                             \
  static inline __host__ T min(const A a, const B b) { return (T)a < (T)b ? (T)a : (T)b; }     \
  static inline __host__ T max(const A a, const B b) { return (T)a > (T)b ? (T)a : (T)b; }
RELAYOUT_NVCC_MINMAX(int, int, int)
RELAYOUT_NVCC_MINMAX(unsigned int, unsigned int, unsigned int)
RELAYOUT_NVCC_MINMAX(unsigned int, int, unsigned int)
RELAYOUT_NVCC_MINMAX(unsigned int, unsigned int, int)
RELAYOUT_NVCC_MINMAX(long int, long int, long int)
RELAYOUT_NVCC_MINMAX(unsigned long int, unsigned long int, unsigned long int)
RELAYOUT_NVCC_MINMAX(unsigned long int, long int, unsigned long int)
RELAYOUT_NVCC_MINMAX(unsigned long int, unsigned long int, long int)
RELAYOUT_NVCC_MINMAX(long long int, long long int, long long int)
RELAYOUT_NVCC_MINMAX(unsigned long long int, unsigned long long int, unsigned long long int)
RELAYOUT_NVCC_MINMAX(unsigned long long int, long long int, unsigned long long int)
RELAYOUT_NVCC_MINMAX(unsigned long long int, unsigned long long int, long long int)
RELAYOUT_NVCC_MINMAX(float, float, float)
RELAYOUT_NVCC_MINMAX(double, double, double)
RELAYOUT_NVCC_MINMAX(double, float, double)
RELAYOUT_NVCC_MINMAX(double, double, float)
#undef RELAYOUT_NVCC_MINMAX

#define RELAYOUT_NVCC_NAMED_MINMAX(T, MIN, MAX)                                    \
  static inline __host__ T MIN(const T a, const T b) { return a < b ? a : b; } \
  static inline __host__ T MAX(const T a, const T b) { return a > b ? a : b; }
RELAYOUT_NVCC_NAMED_MINMAX(unsigned int, umin, umax)
RELAYOUT_NVCC_NAMED_MINMAX(long long int, llmin, llmax)
RELAYOUT_NVCC_NAMED_MINMAX(unsigned long long int, ullmin, ullmax)
#undef RELAYOUT_NVCC_NAMED_MINMAX

#endif
