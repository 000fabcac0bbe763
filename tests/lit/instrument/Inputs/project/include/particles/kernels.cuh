// Kernels shared by the simulation driver and the statistics pass.
#pragma once

#include "particle.h"

template <typename Real>
__global__ void integrate(Particle* p, int n, Real dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i].x += p[i].vx * dt;
  p[i].y += p[i].vy * dt;
  p[i].z += p[i].vz * dt;
}

// Only the driver instantiates this one: the statistics unit sees none of its accesses.
template <int Axis>
__device__ float momentum(const Particle* p, int i) {
  return p[i].mass * (Axis == 0 ? p[i].vx : Axis == 1 ? p[i].vy : p[i].vz);
}

// Internal to each unit that includes this header.
static __global__ void countCells(const Particle* p, int n, int* counts) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&counts[p[i].cell], 1);
}
