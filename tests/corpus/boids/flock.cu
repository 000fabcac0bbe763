// The flocking step: each boid steers by separation, alignment and cohesion with the boids of the
// 27 cells around it, in a periodic box.
#include <cstdio>
#include <cstdlib>

#include "flock.h"
#include "grid.cuh"

__constant__ FlockRules c_rules;

#define CHECK_CUDA(x)                                                                         \
  do {                                                                                        \
    cudaError_t e = (x);                                                                      \
    if (e != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

__device__ inline float wrap(float d, float box) {
  if (d > 0.5f * box) return d - box;
  if (d < -0.5f * box) return d + box;
  return d;
}

__global__ void flockStep(const Boid* current, Boid* next, int n, const int* cellStart, const int* cellCount,
                          const int* order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Boid& me = current[i];
  const float3 pos = me.position();
  const int side = c_rules.cellsPerSide;
  const int cx = min(int(pos.x / c_rules.radius), side - 1);
  const int cy = min(int(pos.y / c_rules.radius), side - 1);
  const int cz = min(int(pos.z / c_rules.radius), side - 1);
  const float r2 = c_rules.radius * c_rules.radius;

  float3 away = make_float3(0, 0, 0), velSum = away, centreSum = away;
  int count = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int c = (((cz + dz + side) % side) * side + (cy + dy + side) % side) * side + (cx + dx + side) % side;
        for (int k = cellStart[c]; k < cellStart[c] + cellCount[c]; ++k) {
          const int j = order[k];
          if (j == i || current[j].flock() != me.flock()) continue;
          const float3 other = current[j].position();
          const float3 d = make_float3(wrap(other.x - pos.x, c_rules.box), wrap(other.y - pos.y, c_rules.box),
                                       wrap(other.z - pos.z, c_rules.box));
          const float dist2 = dot(d, d);
          if (dist2 >= r2 || dist2 == 0.0f) continue;
          away = away - (1.0f / dist2) * d;
          velSum = velSum + current[j].velocity();
          centreSum = centreSum + (pos + d);
          ++count;
        }
      }
  Boid updated = me;
  updated.setVelocity(steer(me.velocity(), away, velSum, centreSum, pos, count, c_rules));
  updated.advance(c_rules.dt, c_rules.box);
  next[i] = updated;
}

void createGrid(CellGrid& grid, int n, const FlockRules& rules) {
  grid.cells = rules.cellsPerSide * rules.cellsPerSide * rules.cellsPerSide;
  CHECK_CUDA(cudaMalloc(&grid.cellOf, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&grid.order, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&grid.cellStart, grid.cells * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&grid.cellEnd, grid.cells * sizeof(int)));
  CHECK_CUDA(cudaMemcpyToSymbol(c_rules, &rules, sizeof(rules)));
}

void destroyGrid(CellGrid& grid) {
  cudaFree(grid.cellOf);
  cudaFree(grid.order);
  cudaFree(grid.cellStart);
  cudaFree(grid.cellEnd);
}

// Runs `steps` steps, ping-ponging between the two arrays; returns the one that holds the result.
Boid* simulate(Boid* d_current, Boid* d_next, int n, const FlockRules& rules, CellGrid& grid, int steps,
               cudaStream_t stream) {
  const int threads = 256, blocks = (n + threads - 1) / threads;
  int* counts;  // pinned, so the prefix sum on the host overlaps nothing but stays cheap to fetch
  CHECK_CUDA(cudaMallocHost(&counts, grid.cells * sizeof(int)));
  int* cellCount = grid.cellEnd;  // cellEnd holds the counts, then the scatter cursors
  int* cursor;
  CHECK_CUDA(cudaMalloc(&cursor, grid.cells * sizeof(int)));
  for (int s = 0; s < steps; ++s) {
    CHECK_CUDA(cudaMemsetAsync(cellCount, 0, grid.cells * sizeof(int), stream));
    CHECK_CUDA(cudaMemsetAsync(cursor, 0, grid.cells * sizeof(int), stream));
    assignCells<<<blocks, threads, 0, stream>>>(d_current, n, rules, grid.cellOf, cellCount);
    CHECK_CUDA(cudaMemcpyAsync(counts, cellCount, grid.cells * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    int sum = 0;
    for (int c = 0; c < grid.cells; ++c) {
      const int k = counts[c];
      counts[c] = sum;
      sum += k;
    }
    CHECK_CUDA(cudaMemcpyAsync(grid.cellStart, counts, grid.cells * sizeof(int), cudaMemcpyHostToDevice, stream));
    fillCells<<<blocks, threads, 0, stream>>>(grid.cellOf, n, grid.cellStart, cursor, grid.order);
    flockStep<<<blocks, threads, 0, stream>>>(d_current, d_next, n, grid.cellStart, cellCount, grid.order);
    CHECK_CUDA(cudaGetLastError());
    Boid* t = d_current;
    d_current = d_next;
    d_next = t;
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  cudaFree(cursor);
  cudaFreeHost(counts);
  return d_current;
}
