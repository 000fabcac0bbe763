// Sort-and-sweep broad phase on the x axis: boxes sorted by min.x, each box sweeps forward over
// the boxes that start before it ends and keeps those that also overlap in y and z.
#pragma once

#include "aabb.h"

__global__ void integrateBodies(Body* bodies, int n, World w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Body b = bodies[i];
  bounce(b.pos.x, b.vel.x, w.dt, w.length);
  bounce(b.pos.y, b.vel.y, w.dt, w.width);
  bounce(b.pos.z, b.vel.z, w.dt, w.width);
  bodies[i] = b;
}

__global__ void buildAABBs(const Body* bodies, int n, AABB* boxes, float* keys, int* order) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = bodies[i].radius;
  boxes[i].min = make_float3(bodies[i].pos.x - r, bodies[i].pos.y - r, bodies[i].pos.z - r);
  boxes[i].max = make_float3(bodies[i].pos.x + r, bodies[i].pos.y + r, bodies[i].pos.z + r);
  boxes[i].id = i;
  keys[i] = boxes[i].min.x;
  order[i] = i;
}

__global__ void gatherSorted(const AABB* boxes, const int* order, int n, AABB* sorted) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) sorted[k] = boxes[order[k]];
}

// Pass 1 counts each box's partners, pass 2 (Write) stores them at the scanned offsets.
template <bool Write>
__global__ void sweep(const AABB* sorted, int n, int* counts, const int* offsets, int2* pairs) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const AABB& a = sorted[k];
  int found = 0;
  for (int j = k + 1; j < n && sorted[j].min.x <= a.max.x; ++j) {
    if (!overlapsYZ(a, sorted[j])) continue;
    if (Write) {
      int lo = min(a.id, sorted[j].id), hi = max(a.id, sorted[j].id);
      pairs[offsets[k] + found] = make_int2(lo, hi);
    }
    ++found;
  }
  if (!Write) counts[k] = found;
}
