// Source and transport kernels: every launch moves each live neutron by one flight.
#pragma once
#include "transport.h"

__constant__ MaterialXS c_materials[kRegions];

// Tallies on the GPU: fixed-point weights and event counts, added with integer atomics.
struct DeviceTally {
  unsigned long long* absorbed;  // kBins
  unsigned long long* leaked;    // left, right
  unsigned int* fates;           // per Fate

  __device__ void absorb(int bin, float w) { atomicAdd(&absorbed[bin], toFixed(w)); }
  __device__ void leak(int side, float w) { atomicAdd(&leaked[side], toFixed(w)); }
};

__global__ void sourceNeutrons(Neutron* neutrons, int count, float3 origin, float energy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  CounterRng rng(i, 0);
  Neutron n;
  n.pos = origin;
  n.dir = isotropic(rng);
  n.energy = energy;
  n.weight = 1.0f;
  n.alive = 1;
  n.draws = rng.counter();
  neutrons[i] = n;
}

template <typename Tally>
__global__ void transportStep(Neutron* neutrons, int count, Tally tally, int* stillAlive) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count || !neutrons[i].alive) return;
  int fate = flight(neutrons[i], i, c_materials, tally);
  atomicAdd(&tally.fates[fate], 1u);
  if (fate == FLYING) atomicAdd(stillAlive, 1);
}
