// Frontier-based Bellman-Ford: each round relaxes the out-edges of the vertices lowered in the round
// before. Distances are integers and lowered with atomicMin, so the result does not depend on the
// order in which threads run.
#pragma once
#include "graph.h"

__global__ void initVertices(VertexState* vertices, int count, int source) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= count) return;
  VertexState& s = vertices[v];
  s.dist = v == source ? 0 : kUnreached;
  s.parent = v == source ? source : INT_MAX;
  s.active = v == source;
  s.nextActive = 0;
}

__global__ void stripWeights(const Edge* edges, int count, UnitEdge* unit) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  unit[k].src = edges[k].src;
  unit[k].dst = edges[k].dst;
}

template <typename EdgeType>
__global__ void relaxEdges(const EdgeType* edges, int count, VertexState* vertices, int* changed) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const EdgeType& e = edges[k];
    if (!vertices[e.src].active) continue;
    int candidate = vertices[e.src].dist + weightOf(e);
    VertexState* target = &vertices[e.dst];
    if (candidate < target->dist) {
      atomicMin(&target->dist, candidate);
      target->nextActive = 1;
      *changed = 1;
    }
  }
}

__global__ void advanceFrontier(VertexState* vertices, int count) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= count) return;
  vertices[v].active = vertices[v].nextActive;
  vertices[v].nextActive = 0;
}

// After convergence: the smallest predecessor u with dist[u] + w(u, v) == dist[v].
template <typename EdgeType>
__global__ void pickParents(const EdgeType* edges, int count, VertexState* vertices) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const EdgeType& e = edges[k];
    int du = vertices[e.src].dist;
    if (du != kUnreached && du + weightOf(e) == vertices[e.dst].dist) atomicMin(&vertices[e.dst].parent, e.src);
  }
}
