// DEM kernels: binning grains into fixed-capacity cells (sorted, for reproducible sums), contact forces from the 27
// neighbouring cells, and explicit integration of translation and rotation.
#pragma once
#include "grain.h"

__global__ void binGrains(const Grain* grains, int n, DemParams p, int* cellCount, int* cellGrains, int* overflow) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int3 c = cellOf(grains[i].pos, p);
  const int cell = (c.z * p.cells.y + c.y) * p.cells.x + c.x;
  const int slot = atomicAdd(&cellCount[cell], 1);
  if (slot < DEM_CELL_CAPACITY) cellGrains[cell * DEM_CELL_CAPACITY + slot] = i;
  else atomicAdd(overflow, 1);
}

// Orders each cell's grains by index, so the force sums do not depend on the order of the atomics.
__global__ void sortCells(const int* cellCount, int* cellGrains, int cells) {
  const int cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= cells) return;
  int* list = cellGrains + cell * DEM_CELL_CAPACITY;
  const int count = min(cellCount[cell], DEM_CELL_CAPACITY);
  for (int a = 1; a < count; ++a) {
    const int v = list[a];
    int b = a - 1;
    for (; b >= 0 && list[b] > v; --b) list[b + 1] = list[b];
    list[b + 1] = v;
  }
}

__global__ void contactForces(const Grain* grains, int n, DemParams p, const int* cellCount, const int* cellGrains,
                              float3* force, float3* torque) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Grain* me = &grains[i];
  const int3 c = cellOf(me->pos, p);
  float3 f = wallForce(*me, p);
  float3 t = make_float3(0, 0, 0);
  for (int z = max(c.z - 1, 0); z <= min(c.z + 1, p.cells.z - 1); ++z)
    for (int y = max(c.y - 1, 0); y <= min(c.y + 1, p.cells.y - 1); ++y)
      for (int x = max(c.x - 1, 0); x <= min(c.x + 1, p.cells.x - 1); ++x) {
        const int cell = (z * p.cells.y + y) * p.cells.x + x;
        const int count = min(cellCount[cell], DEM_CELL_CAPACITY);
        for (int s = 0; s < count; ++s) {
          const int j = cellGrains[cell * DEM_CELL_CAPACITY + s];
          if (j != i) f += contactForce(me, &grains[j], p, &t);
        }
      }
  force[i] = f;
  torque[i] = t;
}

__global__ void integrate(Grain* grains, int n, DemParams p, const float3* force, const float3* torque) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Grain* g = grains + i;
  const float invMass = 1.0f / g->mass;
  const float invInertia = 1.0f / (0.4f * g->mass * g->radius * g->radius);
  g->vel += p.dt * (invMass * force[i] + make_float3(0, -p.gravity, 0));
  g->pos += p.dt * g->vel;
  g->omega += (p.dt * invInertia) * torque[i];
}
