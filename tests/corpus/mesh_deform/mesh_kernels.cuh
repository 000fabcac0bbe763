// Per-frame work on the facets: pose the rest mesh, then sum the posed mesh's area, volume and moment.
#pragma once
#include "mesh.h"

constexpr int kMomentThreads = 256;

__global__ void poseMesh(const Facet* rest, Facet* posed, int n, Twist twist) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Facet f = rest[i];
  posed[i] = makeFacet(twist.apply(f.a), twist.apply(f.b), twist.apply(f.c));
}

// Sums of a block's values in a fixed order (a tree in shared memory), so every run sums alike.
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

// One Moments per block: the area of each facet and the signed volume of the tetrahedron it spans
// with the origin (summed over a closed surface, the enclosed volume).
template <int BLOCK>
__global__ void facetMoments(const Facet* facets, int n, Moments* partial) {
  __shared__ float scratch[BLOCK];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  float area = 0.f, volume = 0.f;
  float3 moment = make_float3(0.f, 0.f, 0.f);
  if (i < n) {
    const Facet f = facets[i];
    area = 0.5f * dot(f.normal, cross(f.b - f.a, f.c - f.a));
    volume = dot(f.a, cross(f.b, f.c)) / 6.f;
    moment = (0.25f * volume) * (f.a + f.b + f.c);
  }
  area = blockSum<BLOCK>(area, scratch);
  volume = blockSum<BLOCK>(volume, scratch);
  moment.x = blockSum<BLOCK>(moment.x, scratch);
  moment.y = blockSum<BLOCK>(moment.y, scratch);
  moment.z = blockSum<BLOCK>(moment.z, scratch);
  if (threadIdx.x == 0) {
    partial[blockIdx.x].area = area;
    partial[blockIdx.x].volume = volume;
    partial[blockIdx.x].moment = moment;
  }
}

// The blocks' partial sums of one frame added in block order by one block, in double.
__global__ void frameMoments(const Moments* partial, int blocks, Moments* frame) {
  __shared__ double sums[5][kMomentThreads];
  double s[5] = {0, 0, 0, 0, 0};
  for (int b = threadIdx.x; b < blocks; b += kMomentThreads) {
    s[0] += partial[b].area;
    s[1] += partial[b].volume;
    s[2] += partial[b].moment.x;
    s[3] += partial[b].moment.y;
    s[4] += partial[b].moment.z;
  }
  for (int k = 0; k < 5; ++k) sums[k][threadIdx.x] = s[k];
  __syncthreads();
  for (int half = kMomentThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      for (int k = 0; k < 5; ++k) sums[k][threadIdx.x] += sums[k][threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    frame->area = float(sums[0][0]);
    frame->volume = float(sums[1][0]);
    frame->moment = make_float3(float(sums[2][0]), float(sums[3][0]), float(sums[4][0]));
  }
}
