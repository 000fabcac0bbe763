// The host side and a kernel of its own, built without HALF_STEP.
#include <vector>

#include "particle.h"

__global__ void settle(Particle* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) step(p, i, 0.001f);
}

int main() {
  const int n = 1 << 12;
  std::vector<Particle> h(n);
  Particle* d;
  cudaMalloc(&d, n * sizeof(Particle));
  cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 255) / 256, 256>>>(d, n, 0.01f);
  settle<<<(n + 255) / 256, 256>>>(d, n);
  cudaMemcpy(h.data(), d, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return 0;
}
