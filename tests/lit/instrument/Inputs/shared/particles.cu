// Tiled gravitational accelerations, a per-species census and a leap-frog step.
#include "particles.h"

#include <cstdio>
#include <vector>

// The tile's size is a constant of the kernel, declared before the tile.
__global__ void accelerations(const Particle* particles, int n, float3* accel, float softening) {
  constexpr int kTile = kBlock;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float4 tile[kTile];
  const float3 me = i < n ? particles[i].pos : make_float3(0.0f, 0.0f, 0.0f);
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int start = 0; start < n; start += kTile) {
    const int j = start + threadIdx.x;
    tile[threadIdx.x] = j < n ? make_float4(particles[j].pos.x, particles[j].pos.y, particles[j].pos.z,
                                            particles[j].mass)
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (int k = 0; k < kTile; ++k) {
      const float dx = tile[k].x - me.x, dy = tile[k].y - me.y, dz = tile[k].z - me.z;
      const float r2 = dx * dx + dy * dy + dz * dz + softening;
      const float s = tile[k].w * rsqrtf(r2 * r2 * r2);
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) accel[i] = a;
}

// Particles per species: a block histogram in shared memory, then one atomic per bin.
__global__ void census(const Particle* particles, int n, unsigned* counts) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int species = i < n ? particles[i].species : -1;
  __shared__ unsigned bins[kSpecies];
  if (threadIdx.x < kSpecies) bins[threadIdx.x] = 0;
  __syncthreads();
  if (species >= 0) atomicAdd(&bins[species % kSpecies], 1u);
  __syncthreads();
  if (threadIdx.x < kSpecies) atomicAdd(&counts[threadIdx.x], bins[threadIdx.x]);
}

// Mass per species, the bins sized by a constant of the kernel and declared after the first read.
__global__ void speciesMass(const Particle* particles, int n, float* mass) {
  constexpr int kBins = kSpecies;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float m = i < n ? particles[i].mass : 0.0f;
  const int species = i < n ? particles[i].species % kBins : 0;
  __shared__ float bins[kBins];
  if (threadIdx.x < kBins) bins[threadIdx.x] = 0.0f;
  __syncthreads();
  atomicAdd(&bins[species], m);
  __syncthreads();
  if (threadIdx.x < kBins) atomicAdd(&mass[threadIdx.x], bins[threadIdx.x]);
}

// The heaviest particle per block, its scratch declared where it is needed.
__global__ void heaviest(const Particle* particles, int n, float* blockMax) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float m = i < n ? particles[i].mass : 0.0f;
  if (blockDim.x > 32) {
    __shared__ float scratch[kBlock];
    scratch[threadIdx.x] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
      __syncthreads();
    }
    m = scratch[0];
  }
  if (threadIdx.x == 0) blockMax[blockIdx.x] = m;
}

__global__ void leapfrog(Particle* particles, int n, const float3* accel, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle& p = particles[i];
  p.vel.x += accel[i].x * dt;
  p.vel.y += accel[i].y * dt;
  p.vel.z += accel[i].z * dt;
  p.pos.x += p.vel.x * dt;
  p.pos.y += p.vel.y * dt;
  p.pos.z += p.vel.z * dt;
}

int main() {
  const int n = 4096, blocks = (n + kBlock - 1) / kBlock;
  std::vector<Particle> host(n);
  for (int i = 0; i < n; ++i) {
    const float t = 0.01f * i;
    host[i] = {make_float3(cosf(t) * (1 + i % 7), sinf(t) * (1 + i % 5), 0.1f * (i % 11)),
               make_float3(-sinf(t), cosf(t), 0.0f), 1.0f + (i % 3), i % kSpecies};
  }
  Particle* particles;
  float3* accel;
  double* partial;
  unsigned* counts;
  float* speciesMassSum;
  float* blockMax;
  cudaMalloc(&particles, n * sizeof(Particle));
  cudaMalloc(&accel, n * sizeof(float3));
  cudaMalloc(&partial, blocks * sizeof(double));
  cudaMalloc(&counts, kSpecies * sizeof(unsigned));
  cudaMalloc(&speciesMassSum, kSpecies * sizeof(float));
  cudaMalloc(&blockMax, blocks * sizeof(float));
  cudaMemcpy(particles, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  cudaMemset(counts, 0, kSpecies * sizeof(unsigned));
  cudaMemset(speciesMassSum, 0, kSpecies * sizeof(float));
  for (int step = 0; step < 4; ++step) {
    accelerations<<<blocks, kBlock>>>(particles, n, accel, 1e-3f);
    leapfrog<<<blocks, kBlock>>>(particles, n, accel, 1e-3f);
  }
  kineticEnergy<kBlock><<<blocks, kBlock>>>(particles, n, partial);
  census<<<blocks, kBlock>>>(particles, n, counts);
  speciesMass<<<blocks, kBlock>>>(particles, n, speciesMassSum);
  heaviest<<<blocks, kBlock>>>(particles, n, blockMax);
  std::vector<double> energy(blocks);
  std::vector<unsigned> census(kSpecies);
  std::vector<float> heaviestOf(blocks), massOf(kSpecies);
  cudaMemcpy(energy.data(), partial, blocks * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(census.data(), counts, kSpecies * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(heaviestOf.data(), blockMax, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(massOf.data(), speciesMassSum, kSpecies * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0.0;
  for (double e : energy) total += e;
  float heaviestAll = 0.0f;
  for (float m : heaviestOf) heaviestAll = fmaxf(heaviestAll, m);
  std::printf("kinetic %.6e heaviest %.1f species0 %u mass0 %.1f\n", total, heaviestAll, census[0], massOf[0]);
  cudaFree(particles);
  cudaFree(accel);
  cudaFree(partial);
  cudaFree(counts);
  cudaFree(speciesMassSum);
  cudaFree(blockMax);
  return 0;
}
