// The push and the diagnostics. Each thread moves its own ion: both records read and written whole.
#pragma once
#include "particles.h"

constexpr int kThreads = 256;

__global__ void seedCloud(Ion* ions, Momentum* momenta, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ions[i] = initialIon(i);
  momenta[i] = initialMomentum(i);
}

__global__ void push(Ion* ions, Momentum* momenta, int n, TrapField field, float t, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Ion ion = ions[i];
  Momentum mom = momenta[i];
  borisStep(ion, mom, field, t, dt);
  ions[i] = ion;
  momenta[i] = mom;
}

template <int BLOCK>
__device__ float blockSum(float value, float* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] += scratch[threadIdx.x + half];
    __syncthreads();
  }
  const float total = scratch[0];
  __syncthreads();
  return total;
}

// One Diagnostics per block, in a fixed order.
template <int BLOCK>
__global__ void diagnose(const Ion* ions, const Momentum* momenta, int n, float wall2, Diagnostics* partial) {
  __shared__ float scratch[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  Diagnostics d = {0.f, 0.f, 0.f, 0.f, 0.f};
  if (i < n) {
    const Ion ion = ions[i];
    const Momentum mom = momenta[i];
    const float r2 = ion.x * ion.x + ion.y * ion.y;
    d.kinetic = 0.5f * mom.weight * (mom.ux * mom.ux + mom.uy * mom.uy + mom.uz * mom.uz);
    d.radial = mom.weight * r2;
    d.axial = mom.weight * ion.z * ion.z;
    d.escaped = r2 > wall2 ? mom.weight : 0.f;
    d.weight = mom.weight;
  }
  d.kinetic = blockSum<BLOCK>(d.kinetic, scratch);
  d.radial = blockSum<BLOCK>(d.radial, scratch);
  d.axial = blockSum<BLOCK>(d.axial, scratch);
  d.escaped = blockSum<BLOCK>(d.escaped, scratch);
  d.weight = blockSum<BLOCK>(d.weight, scratch);
  if (threadIdx.x == 0) partial[blockIdx.x] = d;
}
