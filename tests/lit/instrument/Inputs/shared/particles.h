// Particles of a small gravitational system and the block-level helpers its kernels share.
#pragma once

struct Particle {
  float3 pos;
  float3 vel;
  float mass;
  int species;
};

constexpr int kBlock = 128;
constexpr int kSpecies = 8;

// Sums one value per thread over the block; `scratch` holds blockDim.x values.
template <typename T>
__device__ T blockSum(T value, T* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  return scratch[0];
}

// Total kinetic energy, one partial sum per block; the scratch buffer is a template parameter's size.
template <int BLOCK>
__global__ void kineticEnergy(const Particle* particles, int n, double* partial) {
  __shared__ double scratch[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  double e = 0.0;
  if (i < n) {
    const float3 v = particles[i].vel;
    e = 0.5 * particles[i].mass * (v.x * v.x + v.y * v.y + v.z * v.z);
  }
  const double sum = blockSum(e, scratch);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
