// The host side: one step of the particles on the GPU.
#include <vector>

#include "particle.h"

int main() {
  const int n = 1 << 16;
  std::vector<Particle> h(n);
  Particle* d;
  cudaMalloc(&d, n * sizeof(Particle));
  cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  kick<<<(n + 255) / 256, 256>>>(d, n, 1.0f, 0.01f);
  drift<<<(n + 255) / 256, 256>>>(d, n, 0.01f);
  cudaMemcpy(h.data(), d, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return 0;
}
