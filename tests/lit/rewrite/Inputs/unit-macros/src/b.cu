// The host side, built without the macros.
#include <vector>

#include "particle.h"

int main() {
  const int n = 1 << 12;
  std::vector<Particle> h(n);
  Particle* d;
  cudaMalloc(&d, n * sizeof(Particle));
  cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 255) / 256, 256>>>(d, n, 0.01f);
  cudaMemcpy(h.data(), d, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return 0;
}
