// The simulation step on the GPU: neighbour list, pair forces through it, and integration.
#pragma once

#include "particles/particle.h"

namespace particles {

// For each particle, the indices of up to kMaxNeighbours others within the cutoff, in index order.
// Stored neighbour-major (neighbours[k * n + i]) so that a warp's reads of its k-th neighbours coalesce.
__global__ void buildNeighbours(const Particle* particles, int n, SimParams params, int* neighbours, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float rc2 = params.cutoff * params.cutoff;
  int count = 0;
  for (int j = 0; j < n && count < kMaxNeighbours; ++j) {
    if (j != i && distance2(particles[i], particles[j]) < rc2) {
      neighbours[count * n + i] = j;
      ++count;
    }
  }
  counts[i] = count;
}

// The total force on each particle from its neighbours: gathers through the list.
__global__ void computeForces(const Particle* particles, int n, const int* neighbours, const int* counts,
                              SimParams params, float3* forces) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 position = particles[i].position;
  float charge = particles[i].charge;
  float3 total = make_float3(0.f, 0.f, 0.f);
  for (int k = 0; k < counts[i]; ++k) {
    int j = neighbours[k * n + i];
    float3 f = pairForce(position, charge, particles[j].position, particles[j].charge, params);
    total.x += f.x;
    total.y += f.y;
    total.z += f.z;
  }
  forces[i] = total;
}

// Moves every particle by one time step.
__global__ void integrate(Particle* particles, const float3* forces, int n, SimParams params) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    advance(particles[i], forces[i], params);
}

}  // namespace particles
