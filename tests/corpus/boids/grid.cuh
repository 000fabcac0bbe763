// Building the uniform neighbour grid on the device.
#pragma once
#include "boid.h"

__global__ void assignCells(const Boid* boids, int n, FlockRules rules, int* cellOf, int* cellCount) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cellIndex(boids[i].position(), rules);
  cellOf[i] = c;
  atomicAdd(&cellCount[c], 1);
}

__global__ void fillCells(const int* cellOf, int n, const int* cellStart, int* cellCursor, int* order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cellOf[i];
  order[cellStart[c] + atomicAdd(&cellCursor[c], 1)] = i;
}
