// The host hands a kernel the address of a field besides the array itself: after the rewrite that
// pointer reaches the charges' array, so no parameter of Charge may promise restrict. With another
// array in its place (the test's sed), `spread` gets its locals.
#include <cuda_runtime.h>

struct Charge {
  float q;
  float x, y, z;
};

__global__ void spread(Charge* charges, const float* reference, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < 4; ++k) charges[i].q += 0.25f * reference[0];
}

int main() {
  const int n = 256;
  Charge* charges;
  float* scale;
  cudaMalloc(&charges, n * sizeof(Charge));
  cudaMalloc(&scale, sizeof(float));
  spread<<<1, n>>>(charges, &charges[0].q, n);
  cudaFree(charges);
  cudaFree(scale);
  return 0;
}
