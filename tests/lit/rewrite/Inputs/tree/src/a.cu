// The kernels.
#include "particle.h"

__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

__global__ void kick(Particle* p, int n, float ez, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].vz += ez * dt;
}
