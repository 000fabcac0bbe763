// PageRank kernels, pull style: each node sums rank / outDegree over the nodes linking to it.
#pragma once

#include "graph.h"

// Read-only loads through the texture path where nvcc is the compiler.
#if defined(__NVCC__)
#define LOAD_RO(x) __ldg(&(x))
#else
#define LOAD_RO(x) (x)
#endif

// Sum over a block of BLOCK threads; thread 0 gets the result. Fixed order, so reproducible.
template <int BLOCK>
__device__ float blockSum(float v, float* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  return scratch[0];
}

// Rank held by pages without links, per block; it is spread evenly over all pages.
template <int BLOCK>
__global__ void danglingRank(const Node* nodes, int n, float* blockTotals) {
  __shared__ float scratch[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float mine = (i < n && nodes[i].outDegree == 0) ? nodes[i].rank : 0.0f;
  float total = blockSum<BLOCK>(mine, scratch);
  if (threadIdx.x == 0) blockTotals[blockIdx.x] = total;
}

// Adds the block totals in order, in one thread: a handful of thousands of values.
__global__ void sumTotals(const float* blockTotals, int count, float* result) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    double s = 0.0;
    for (int b = 0; b < count; ++b) s += blockTotals[b];
    *result = (float)s;
  }
}

__global__ void pullRanks(const Node* __restrict__ nodes, const int* __restrict__ sources, int n, float damping,
                          const float* danglingTotal, float* next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float sum = 0.0f;
  int first = nodes[v].firstEdge, last = first + nodes[v].inDegree;
  for (int e = first; e < last; ++e) {
    int u = LOAD_RO(sources[e]);
    sum += LOAD_RO(nodes[u].rank) / nodes[u].outDegree;
  }
  next[v] = (1.0f - damping) / n + damping * (sum + *danglingTotal / n);
}

// Stores the new ranks and the per-block L1 change, for the convergence test.
template <int BLOCK>
__global__ void applyRanks(Node* nodes, const float* next, int n, float* blockChange) {
  __shared__ float scratch[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float change = 0.0f;
  if (i < n) {
    change = fabsf(next[i] - nodes[i].rank);
    nodes[i].rank = next[i];
  }
  float total = blockSum<BLOCK>(change, scratch);
  if (threadIdx.x == 0) blockChange[blockIdx.x] = total;
}
