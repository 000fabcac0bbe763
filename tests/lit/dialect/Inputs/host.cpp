// Host C++ that nvcc hands to the host compiler (no -x cu): CUDA's runtime API, no device code.
#include <cuda_runtime.h>

#include <cstdio>

#if !defined(__NVCC__) || defined(__CUDACC__)
#error "nvcc compiles a .cpp as host C++ with __NVCC__ and without __CUDACC__"
#endif

struct Atom {
  float q, r;
};

int main() {
  Atom* atoms = nullptr;
  if (cudaMalloc(&atoms, 16 * sizeof(Atom)) != cudaSuccess) std::printf("no device\n");
  cudaFree(atoms);
  return 0;
}
