// One simulated day: exposure along the contact graph, then disease progression, then census.
#pragma once

#include "agent.h"

__constant__ DiseaseParams c_disease;

__global__ void exposeKernel(const Agent* agents, ContactGraph g, uint8_t* newlyInfected, int day) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  const Agent& self = agents[i];
  newlyInfected[i] = 0;
  if (self.state() != Susceptible) return;
  uint64_t pressure = 0;
  for (int e = g.rowStart[i]; e < g.rowStart[i + 1]; ++e) {
    const Agent& other = agents[g.contacts[e]];
    if (other.isInfected()) pressure += other.infectivity();
  }
  if (pressure > 0 && catchesInfection(self, pressure, c_disease, hashDraw(i, day, c_disease.seed)))
    newlyInfected[i] = 1;
}

__global__ void progressKernel(Agent* agents, int n, const uint8_t* newlyInfected) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Agent& a = agents[i];
  if (newlyInfected[i])
    a.infect();
  else if (a.state() == Infected)
    a.advanceDay(c_disease);
}

// Counts agents for which Select holds, per block then one integer atomic per block.
template <typename Select>
__global__ void census(const Agent* agents, int n, Select select, unsigned int* count) {
  __shared__ unsigned int blockCount;
  if (threadIdx.x == 0) blockCount = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (select(agents[i])) atomicAdd(&blockCount, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(count, blockCount);
}

struct InState {
  HealthState s;
  __host__ __device__ bool operator()(const Agent& a) const { return a.state() == s; }
};

// Active infections per square region of the map.
__global__ void incidenceMap(const Agent* agents, int n, float regionKm, int regionsPerSide, unsigned int* regions) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !agents[i].isInfected()) return;
  float2 h = agents[i].home();
  int rx = min((int)(h.x / regionKm), regionsPerSide - 1);
  int ry = min((int)(h.y / regionKm), regionsPerSide - 1);
  atomicAdd(&regions[ry * regionsPerSide + rx], 1u);
}
