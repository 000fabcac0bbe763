#include <vector>

#include "particle.h"

int main() {
  const int n = 1000;
  std::vector<Particle> h(n);
  Particle* d;
  cudaMalloc(&d, n * sizeof(Particle));
  cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 127) / 128, 128>>>(d, n, 0.5f);
  cudaMemcpy(h.data(), d, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return 0;
}
