// The macros nvcc defines, checked the same way by relayout's parse and by nvcc: each WANT_X says
// which flag was given.
#include <cuda_runtime.h>

#if !defined(__NVCC__) || !defined(__CUDACC__)
#error "__NVCC__ and __CUDACC__ are defined"
#endif
static_assert(__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 == CUDART_VERSION,
              "nvcc's version is the toolkit's");
static_assert(__CUDACC_VER_BUILD__ >= 0, "nvcc's build number");
static_assert(__CUDA_API_VER_MAJOR__ == __CUDACC_VER_MAJOR__, "the runtime API's version");
#if defined(WANT_RDC) != defined(__CUDACC_RDC__)
#error "__CUDACC_RDC__ follows -rdc=true"
#endif
#if defined(WANT_LAMBDA) != defined(__CUDACC_EXTENDED_LAMBDA__)
#error "__CUDACC_EXTENDED_LAMBDA__ follows --extended-lambda"
#endif
#if defined(WANT_CONSTEXPR) != defined(__CUDACC_RELAXED_CONSTEXPR__)
#error "__CUDACC_RELAXED_CONSTEXPR__ follows --expt-relaxed-constexpr"
#endif
#if defined(WANT_DEBUG) != defined(__CUDACC_DEBUG__)
#error "__CUDACC_DEBUG__ follows -G"
#endif
#if defined(WANT_ARCHS_80_90)
constexpr int kArchs[] = {__CUDA_ARCH_LIST__};
static_assert(sizeof(kArchs) == 2 * sizeof(int) && kArchs[0] == 800 && kArchs[1] == 900, "every -gencode");
#endif

struct Cell {
  float u, w;
};

__global__ void scale(Cell* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i].u = 2.0f * c[i].w;
}
