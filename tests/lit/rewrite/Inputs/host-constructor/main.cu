#include <cstdio>
#include <vector>

#include "particle.h"

__global__ void drift(Particle* particles, int n, float dt, float* energy) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  particles[i].pos = advanced(particles[i], dt);
  energy[i] = kinetic(particles[i]);
}

int main() {
  const int n = 1 << 14;
  std::vector<Particle> host(n);
  for (int i = 0; i < n; ++i) host[i].vel = Vec3(1e-3f * i, 1.f, 0.f);
  Particle* particles = nullptr;
  float* energy = nullptr;
  cudaMalloc(&particles, n * sizeof(Particle));
  cudaMalloc(&energy, n * sizeof(float));
  cudaMemcpy(particles, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 255) / 256, 256>>>(particles, n, 0.1f, energy);
  cudaMemcpy(host.data(), particles, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  std::printf("%.4f %.4f\n", host[7].pos.x, host[n - 1].pos.y);
  return 0;
}
