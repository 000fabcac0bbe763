#include <cmath>
#include <cstdio>
#include <vector>

#include "particle.h"

__host__ __device__ Vec3 advanced(const Particle& p, float dt) {
  return Vec3(p.pos.x + dt * p.vel.x, p.pos.y + dt * p.vel.y, p.pos.z + dt * p.vel.z);
}

__global__ void drift(Particle* particles, int n, float dt, float* energy) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  particles[i].pos.x += dt * particles[i].vel.x;
  particles[i].pos.y += dt * particles[i].vel.y;
  particles[i].pos.z += dt * particles[i].vel.z;
  energy[i] = 0.5f * particles[i].mass * dot(particles[i].vel, particles[i].vel);
}

int main() {
  const int n = 1 << 14;
  const float dt = 0.1f;
  std::vector<Particle> host(n);
  for (int i = 0; i < n; ++i) host[i].vel = Vec3(1e-3f * i, 1.f, 0.f);
  std::vector<Vec3> expected(n);
  for (int i = 0; i < n; ++i) expected[i] = advanced(host[i], dt);
  Particle* particles = nullptr;
  float* energy = nullptr;
  cudaMalloc(&particles, n * sizeof(Particle));
  cudaMalloc(&energy, n * sizeof(float));
  cudaMemcpy(particles, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  drift<<<(n + 255) / 256, 256>>>(particles, n, dt, energy);
  cudaMemcpy(host.data(), particles, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  std::vector<float> e(n);
  cudaMemcpy(e.data(), energy, n * sizeof(float), cudaMemcpyDeviceToHost);
  float worst = 0.f;
  for (int i = 0; i < n; ++i) worst = std::fmax(worst, std::fabs(host[i].pos.x - expected[i].x));
  std::printf("max deviation from the CPU step %.3g, energy[7] %.4f\n", worst, e[7]);
  return 0;
}
