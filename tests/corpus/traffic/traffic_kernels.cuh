// One step of the multi-lane Nagel-Schreckenberg model: lane changes (claimed with atomicMin so
// that the lowest vehicle index wins a contested cell), then acceleration, braking, random
// slowdown and movement, all from the occupancy of the previous sub-step.
#pragma once

#include "vehicle.h"

__constant__ RoadParams c_road;

__global__ void fillCells(int* cells, int count, int value) {
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < count; c += gridDim.x * blockDim.x) cells[c] = value;
}

__global__ void markOccupancy(const Vehicle* cars, int n, int* grid) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  grid[cellIndex(c_road, cars[i].lane, cars[i].pos)] = i;
}

__global__ void proposeLaneChange(const Vehicle* cars, int n, const int* grid, int* claims, int* wanted, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Vehicle& v = cars[i];
  wanted[i] = -1;
  // Look left on even steps and right on odd ones, so two cars never swap lanes into each other.
  int target = v.lane + ((step & 1) ? 1 : -1);
  if (target < 0 || target >= c_road.lanes) return;
  int horizon = v.speed + 1;
  int own = gapAhead(grid, c_road, v.lane, v.pos, horizon);
  if (own >= horizon) return;
  if (grid[cellIndex(c_road, target, v.pos)] != kEmpty) return;
  int other = gapAhead(grid, c_road, target, v.pos, horizon);
  if (other <= own) return;
  if (gapBehind(grid, c_road, target, v.pos, kMaxSpeedCap) < kMaxSpeedCap) return;
  wanted[i] = target;
  atomicMin(&claims[cellIndex(c_road, target, v.pos)], i);
}

__global__ void applyLaneChange(Vehicle* cars, int n, const int* claims, const int* wanted) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || wanted[i] < 0) return;
  Vehicle* v = &cars[i];
  if (claims[cellIndex(c_road, wanted[i], v->pos)] == i) v->lane = wanted[i];
}

__device__ int nextSpeed(const Vehicle& v, int gap, uint32_t draw) {
  int s = min(v.speed + 1, v.maxSpeed);
  s = min(s, gap);
  if (s > 0 && (draw & 0xFFFFu) < c_road.slowdown) s -= 1;
  return s;
}

__global__ void driveStep(Vehicle* cars, int n, const int* grid, int step, unsigned long long* flow) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int moved = 0;
  if (i < n) {
    int gap = gapAhead(grid, c_road, cars[i].lane, cars[i].pos, cars[i].maxSpeed);
    int s = nextSpeed(cars[i], gap, mixHash(i, step, c_road.seed));
    cars[i].speed = s;
    int p = cars[i].pos + s;
    cars[i].pos = p >= c_road.length ? p - c_road.length : p;
    moved = s;
  }
  // Block sum of the cells moved, one integer atomic per block.
  __shared__ int partial[256];
  partial[threadIdx.x] = moved;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(flow + step, (unsigned long long)partial[0]);
}
