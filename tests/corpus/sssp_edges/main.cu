// Single-source shortest paths by Bellman-Ford over an edge list (and hop counts with the same kernel
// on the unweighted edges), checked against Dijkstra and BFS on the CPU.
// usage: sssp_edges [vertices] [random edges per vertex] [source]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "graph.h"
#include "sssp_kernels.cuh"

#define CUDA_CHECK(stmt)                                                                                  \
  do {                                                                                                    \
    cudaError_t status_ = (stmt);                                                                         \
    if (status_ != cudaSuccess) {                                                                         \
      fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #stmt, cudaGetErrorString(status_)); \
      exit(2);                                                                                            \
    }                                                                                                     \
  } while (0)

static const int kThreads = 256;
static const int kEdgeBlocks = 2048;

// Rounds until no distance changes; each round relaxes the frontier's out-edges.
template <typename EdgeType>
static int bellmanFord(const EdgeType* edges, int edgeCount, VertexState* vertices, int vertexCount, int source,
                       cudaStream_t stream, int* changed, int* hostChanged) {
  const int vertexBlocks = (vertexCount + kThreads - 1) / kThreads;
  initVertices<<<vertexBlocks, kThreads, 0, stream>>>(vertices, vertexCount, source);
  int rounds = 0;
  do {
    CUDA_CHECK(cudaMemsetAsync(changed, 0, sizeof(int), stream));
    relaxEdges<EdgeType><<<kEdgeBlocks, kThreads, 0, stream>>>(edges, edgeCount, vertices, changed);
    advanceFrontier<<<vertexBlocks, kThreads, 0, stream>>>(vertices, vertexCount);
    CUDA_CHECK(cudaMemcpyAsync(hostChanged, changed, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ++rounds;
  } while (*hostChanged && rounds < vertexCount);
  pickParents<EdgeType><<<kEdgeBlocks, kThreads, 0, stream>>>(edges, edgeCount, vertices);
  return rounds;
}

// The parent rule on the CPU: the smallest u with d[u] + w(u, v) == d[v].
static std::vector<int> parentsOf(const std::vector<Edge>& edges, const std::vector<int>& d, bool unit, int source) {
  std::vector<int> parent(d.size(), INT_MAX);
  parent[source] = source;
  for (const Edge& e : edges) {
    int w = unit ? 1 : e.weight;
    if (d[e.src] != kUnreached && d[e.src] + w == d[e.dst]) parent[e.dst] = std::min(parent[e.dst], e.src);
  }
  return parent;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : (1 << 19);
  int degree = argc > 2 ? atoi(argv[2]) : 8;
  int source = argc > 3 ? atoi(argv[3]) : 0;
  if (n < 2 || degree < 0 || source < 0 || source >= n) {
    fprintf(stderr, "usage: %s [vertices >= 2] [random edges per vertex >= 0] [source < vertices]\n", argv[0]);
    return 2;
  }
  std::vector<Edge> edges = makeGraph(n, n * degree, 7u);
  const int m = static_cast<int>(edges.size());

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  Edge* dEdges;
  UnitEdge* dUnit;
  VertexState* dVertices;
  int* dChanged;
  int* hostChanged;
  VertexState* hostVertices;
  CUDA_CHECK(cudaMalloc(&dEdges, m * sizeof(Edge)));
  CUDA_CHECK(cudaMalloc(&dUnit, m * sizeof(UnitEdge)));
  CUDA_CHECK(cudaMalloc(&dVertices, n * sizeof(VertexState)));
  CUDA_CHECK(cudaMalloc(&dChanged, sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&hostChanged, sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&hostVertices, 2 * n * sizeof(VertexState)));
  CUDA_CHECK(cudaMemcpyAsync(dEdges, edges.data(), m * sizeof(Edge), cudaMemcpyHostToDevice, stream));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, stream));
  stripWeights<<<(m + kThreads - 1) / kThreads, kThreads, 0, stream>>>(dEdges, m, dUnit);
  bellmanFord(dEdges, m, dVertices, n, source, stream, dChanged, hostChanged);
  CUDA_CHECK(cudaMemcpyAsync(hostVertices, dVertices, n * sizeof(VertexState), cudaMemcpyDeviceToHost, stream));
  bellmanFord(dUnit, m, dVertices, n, source, stream, dChanged, hostChanged);
  CUDA_CHECK(cudaMemcpyAsync(hostVertices + n, dVertices, n * sizeof(VertexState), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaGetLastError());
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<int> dist, hops;
  referenceDistances(n, edges, source, dist, hops);
  std::vector<int> parent = parentsOf(edges, dist, false, source), hopParent = parentsOf(edges, hops, true, source);

  int wrongDist = 0, wrongHops = 0, wrongParents = 0, reached = 0, maxDist = 0, maxHops = 0;
  long long distSum = 0, parentSum = 0;
  for (int v = 0; v < n; ++v) {
    const VertexState& weighted = hostVertices[v];
    const VertexState& unit = hostVertices[n + v];
    wrongDist += weighted.dist != dist[v];
    wrongHops += unit.dist != hops[v];
    wrongParents += (weighted.parent != parent[v]) + (unit.parent != hopParent[v]);
    if (weighted.dist != kUnreached) {
      ++reached;
      maxDist = std::max(maxDist, weighted.dist);
      maxHops = std::max(maxHops, unit.dist);
      distSum += weighted.dist;
      parentSum += weighted.parent;
    }
  }
  printf("%d vertices, %d edges, source %d, GPU %.3f ms\n", n, m, source, ms);
  printf("reached %d, largest distance %d, sum of distances %lld, most hops %d, sum of parents %lld\n", reached,
         maxDist, distSum, maxHops, parentSum);
  printf("mismatches: distances %d, hop counts %d, parents %d\n", wrongDist, wrongHops, wrongParents);
  bool passed = wrongDist == 0 && wrongHops == 0 && wrongParents == 0;
  printf("%s (integer distances, hop counts and parents equal to Dijkstra and BFS on the CPU)\n",
         passed ? "CHECK PASSED" : "CHECK FAILED");

  cudaFreeHost(hostVertices);
  cudaFreeHost(hostChanged);
  cudaFree(dChanged);
  cudaFree(dVertices);
  cudaFree(dUnit);
  cudaFree(dEdges);
  cudaStreamDestroy(stream);
  return passed ? 0 : 1;
}
