// Kernels with the loops a gravity code writes: direct sums, tiles, cell lists and searches.
#include "bodies.h"

// The direct sum over every body: one long counted loop.
__global__ void potential(const Body* bodies, int n, float softening2, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float phi = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    const float dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y, dz = bodies[j].z - bodies[i].z;
    phi -= bodies[j].mass * rsqrtf(dx * dx + dy * dy + dz * dz + softening2);
  }
  out[i] = phi;
}

// One block per partial sum: a block-stride loop written without braces, and one counting down.
template <int Block>
__global__ void massMoments(const Body* bodies, int n, float* mass, float* moment) {
  float m = 0.0f, mx = 0.0f;
  for (int i = threadIdx.x; i < n; i += Block) m += bodies[i].mass;
  for (unsigned i = n; i > threadIdx.x; i -= Block) {
    const Body& b = bodies[i - 1];
    mx += b.mass * b.x;
  }
  mass[threadIdx.x] = m;
  moment[threadIdx.x] = mx;
}
template __global__ void massMoments<256>(const Body*, int, float*, float*);

// Tiles in shared memory: the tile loop holds a barrier and a loop, the inner loop is counted.
__global__ void tiledMass(const Body* bodies, int n, float* out) {
  __shared__ float tile[kTile];
  float acc = 0.0f;
  for (int start = 0; start < n; start += kTile) {
    tile[threadIdx.x] = bodies[start + threadIdx.x].mass;
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < kTile; ++k) acc += tile[k];
    for (int k = 0; k < kTile; ++k) acc -= 0.5f * tile[k];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Loops whose trip count is not known when they start, or that call hooked code.
__global__ void neighbours(const Body* bodies, CellList cells, int n, float limit, int* first, float* weight) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = i % cells.cells;
  float w = 0.0f;
  for (int j = cells.start[c]; j < cells.start[c + 1]; ++j) w += bodies[j].mass;  // bound read from memory
  for (int j = 0; j < n; ++j) w += pairWeight(bodies[i], bodies[j]);               // a hooked call
  int found = -1;
  for (int j = 0; j < n; ++j) {
    if (bodies[j].mass > limit) {
      found = j;
      break;
    }
  }
  int remaining = n;
  for (int j = 0; j < remaining; ++j) {
    if (bodies[j].mass == 0.0f) --remaining;  // the bound changes in the body
  }
  int run = i;
  while (run < n && bodies[run].mass > limit) ++run;  // the condition reads memory
  int steps = 0;
  do w += bodies[(i + steps) % n].x;
  while (++steps < 8);
  first[i] = found + remaining + run;
  weight[i] = w;
}
