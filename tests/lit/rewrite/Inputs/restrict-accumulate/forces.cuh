// Pair forces of a small molecular-dynamics step: each thread sums, over its atom's neighbour
// list, the energy and force of every pair into the atom's accumulator.
#pragma once

#include <cuda_runtime.h>

struct Force {
  float energy;
  float fx, fy, fz;
};

// Lennard-Jones, summed in place.
__global__ void lennardJones(Force* forces, const float4* positions, const int* neighbors, int atoms,
                             int maxNeighbors, float cutoff2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= atoms) return;
  float4 self = positions[i];
  for (int k = 0; k < maxNeighbors; ++k) {
    int j = neighbors[i * maxNeighbors + k];
    float4 other = positions[j];
    float dx = self.x - other.x, dy = self.y - other.y, dz = self.z - other.z;
    float r2 = dx * dx + dy * dy + dz * dz;
    float inv2 = r2 < cutoff2 ? 1.0f / r2 : 0.0f;  // no divergence at the cutoff
    float inv6 = inv2 * inv2 * inv2;
    float scale = 24.0f * inv2 * inv6 * (2.0f * inv6 - 1.0f);
    forces[i].energy += 4.0f * inv6 * (inv6 - 1.0f);
    forces[i].fx += scale * dx;
    forces[i].fy += scale * dy;
    forces[i].fz += scale * dz;
  }
}

// Adds one pair's share to an atom's accumulator.
__device__ void addPair(Force* forces, int i, float energy, float scale, float dx, float dy, float dz) {
  forces[i].energy += energy;
  forces[i].fx += scale * dx;
  forces[i].fy += scale * dy;
  forces[i].fz += scale * dz;
}

// Screened Coulomb (charges in w), summed through addPair.
__global__ void coulomb(Force* forces, const float4* positions, const int* neighbors, int atoms, int maxNeighbors,
                        float kappa) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= atoms) return;
  float4 self = positions[i];
  for (int k = 0; k < maxNeighbors; ++k) {
    float4 other = positions[neighbors[i * maxNeighbors + k]];
    float dx = self.x - other.x, dy = self.y - other.y, dz = self.z - other.z;
    float r = sqrtf(dx * dx + dy * dy + dz * dz);
    float energy = self.w * other.w * __expf(-kappa * r) / r;
    addPair(forces, i, energy, energy * (kappa * r + 1.0f) / (r * r), dx, dy, dz);
  }
}

class ForceField {
 public:
  explicit ForceField(int atoms) : atoms_(atoms) { cudaMalloc(&forces_, atoms * sizeof(Force)); }
  ~ForceField() { cudaFree(forces_); }

  void compute(const float4* positions, const int* neighbors, int maxNeighbors, float cutoff, float kappa) {
    cudaMemset(forces_, 0, atoms_ * sizeof(Force));
    int threads = 128, blocks = (atoms_ + threads - 1) / threads;
    lennardJones<<<blocks, threads>>>(forces_, positions, neighbors, atoms_, maxNeighbors, cutoff * cutoff);
    coulomb<<<blocks, threads>>>(forces_, positions, neighbors, atoms_, maxNeighbors, kappa);
  }
  void download(Force* host) const { cudaMemcpy(host, forces_, atoms_ * sizeof(Force), cudaMemcpyDeviceToHost); }

 private:
  int atoms_;
  Force* forces_ = nullptr;
};
