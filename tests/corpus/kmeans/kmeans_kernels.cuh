// k-means kernels: assignment of each point to its nearest centroid, and the centroid update as one
// block per centroid with a fixed-order tree reduction (the result does not depend on timing).
#pragma once
#include "kmeans.h"

__device__ inline float squaredDistance(float3 a, float3 b) {
  const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return dx * dx + dy * dy + dz * dz;
}

__global__ void assignPoints(Point* points, int n, const Centroid* centroids, int k, int* changed) {
  __shared__ float3 centre[KMEANS_MAX_K];
  for (int c = threadIdx.x; c < k; c += blockDim.x) centre[c] = centroids[c].pos;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float3 p = points[i].pos;
  int best = 0;
  float bestDistance = squaredDistance(p, centre[0]);
  for (int c = 1; c < k; ++c) {
    const float d = squaredDistance(p, centre[c]);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  if (points[i].cluster != best) {
    points[i].cluster = best;
    atomicAdd(changed, 1);
  }
}

template <int BLOCK>
__global__ void updateCentroids(const Point* points, int n, Centroid* centroids) {
  __shared__ float sx[BLOCK], sy[BLOCK], sz[BLOCK], sw[BLOCK];
  __shared__ int sn[BLOCK];
  const int c = blockIdx.x;
  float x = 0, y = 0, z = 0, w = 0;
  int members = 0;
  for (int i = threadIdx.x; i < n; i += BLOCK) {
    const Point& p = points[i];
    if (p.cluster != c) continue;
    x += p.weight * p.pos.x;
    y += p.weight * p.pos.y;
    z += p.weight * p.pos.z;
    w += p.weight;
    ++members;
  }
  sx[threadIdx.x] = x;
  sy[threadIdx.x] = y;
  sz[threadIdx.x] = z;
  sw[threadIdx.x] = w;
  sn[threadIdx.x] = members;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sx[threadIdx.x] += sx[threadIdx.x + half];
      sy[threadIdx.x] += sy[threadIdx.x + half];
      sz[threadIdx.x] += sz[threadIdx.x + half];
      sw[threadIdx.x] += sw[threadIdx.x + half];
      sn[threadIdx.x] += sn[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    Centroid* out = centroids + c;
    out->sum = make_float3(sx[0], sy[0], sz[0]);
    out->weightSum = sw[0];
    out->count = sn[0];
    // An empty cluster keeps its centre.
    if (sw[0] > 0) out->pos = make_float3(sx[0] / sw[0], sy[0] / sw[0], sz[0] / sw[0]);
  }
}
