#include <vector>

#include "particle.h"

__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

int main() {
  const int n = 256;
  std::vector<Particle> h(n, Particle{0, 0, 0, 1, 2, 3});
  Particle* d;
  cudaMalloc(&d, n * sizeof(Particle));
  cudaMemcpy(d, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 127) / 128, 128>>>(d, n, 0.5f);
  cudaMemcpy(h.data(), d, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  cudaFree(d);
  printParticle(h[1]);
  return 0;
}
