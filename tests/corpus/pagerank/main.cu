// PageRank on a synthetic web graph, power iteration with damping 0.85.
// Usage: pagerank [pages] [iterations]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "graph.h"
#include "pagerank.cuh"

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "pagerank: %s: %s\n", what, cudaGetErrorString(err));
    exit(2);
  }
}

static const int kBlock = 256;
static const float kDamping = 0.85f;

static std::vector<float> pagerankCpu(std::vector<Node> nodes, const std::vector<int>& sources, int iterations) {
  const int n = (int)nodes.size();
  std::vector<float> next(n);
  for (int it = 0; it < iterations; ++it) {
    double dangling = 0.0;
    for (const Node& node : nodes)
      if (node.outDegree == 0) dangling += node.rank;
    for (int v = 0; v < n; ++v) {
      float sum = 0.0f;
      for (int e = nodes[v].firstEdge; e < nodes[v].firstEdge + nodes[v].inDegree; ++e)
        sum += nodes[sources[e]].rank / nodes[sources[e]].outDegree;
      next[v] = (1.0f - kDamping) / n + kDamping * (sum + (float)dangling / n);
    }
    for (int v = 0; v < n; ++v) nodes[v].rank = next[v];
  }
  return next;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 19;
  int iterations = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 2 || iterations < 1) {
    fprintf(stderr, "usage: %s [pages >= 2] [iterations >= 1]\n", argv[0]);
    return 2;
  }
  Graph g = makeWebGraph(n, 8, 0xC0FFEEu);
  const int edges = (int)g.sources.size();
  const int blocks = (n + kBlock - 1) / kBlock;

  Node* d_nodes;
  int* d_sources;
  float *d_next, *d_blockTotals, *d_dangling, *d_change;
  check(cudaMalloc(&d_nodes, n * sizeof(Node)), "cudaMalloc nodes");
  check(cudaMalloc(&d_sources, edges * sizeof(int)), "cudaMalloc sources");
  check(cudaMalloc(&d_next, n * sizeof(float)), "cudaMalloc next");
  check(cudaMalloc(&d_blockTotals, blocks * sizeof(float)), "cudaMalloc totals");
  check(cudaMalloc(&d_change, blocks * sizeof(float)), "cudaMalloc change");
  check(cudaMalloc(&d_dangling, sizeof(float)), "cudaMalloc dangling");
  check(cudaMemcpy(d_nodes, g.nodes.data(), n * sizeof(Node), cudaMemcpyHostToDevice), "upload nodes");
  check(cudaMemcpy(d_sources, g.sources.data(), edges * sizeof(int), cudaMemcpyHostToDevice), "upload edges");

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int it = 0; it < iterations; ++it) {
    danglingRank<kBlock><<<blocks, kBlock>>>(d_nodes, n, d_blockTotals);
    sumTotals<<<1, 32>>>(d_blockTotals, blocks, d_dangling);
    pullRanks<<<blocks, kBlock>>>(d_nodes, d_sources, n, kDamping, d_dangling, d_next);
    applyRanks<kBlock><<<blocks, kBlock>>>(d_nodes, d_next, n, d_change);
  }
  cudaEventRecord(stop);
  check(cudaEventSynchronize(stop), "iterations");
  check(cudaGetLastError(), "kernels");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);

  std::vector<Node> result(n);
  std::vector<float> change(blocks);
  check(cudaMemcpy(result.data(), d_nodes, n * sizeof(Node), cudaMemcpyDeviceToHost), "download nodes");
  check(cudaMemcpy(change.data(), d_change, blocks * sizeof(float), cudaMemcpyDeviceToHost), "download change");
  double lastChange = std::accumulate(change.begin(), change.end(), 0.0);

  std::vector<float> cpu = pagerankCpu(g.nodes, g.sources, iterations);

  // Float sums in another order (blocks vs a running double, FMA): ranks agree to 1e-4 relative.
  const double relTol = 1e-4;
  int bad = 0;
  double gpuTotal = 0, cpuTotal = 0, worst = 0;
  for (int v = 0; v < n; ++v) {
    double diff = fabs((double)result[v].rank - cpu[v]);
    worst = std::max(worst, diff / cpu[v]);
    if (diff > relTol * cpu[v] + 1e-12) ++bad;
    gpuTotal += result[v].rank;
    cpuTotal += cpu[v];
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](int a, int b) { return cpu[a] > cpu[b] || (cpu[a] == cpu[b] && a < b); });

  printf("pages %d, links %d, iterations %d, GPU %.3f ms\n", n, edges, iterations, ms);
  printf("rank sum %.6f (CPU %.6f), L1 change in the last iteration %.3e\n", gpuTotal, cpuTotal, lastChange);
  printf("top pages:");
  for (int k = 0; k < 5; ++k) printf(" %d:%.6e", order[k], result[order[k]].rank);
  printf("\n");
  printf("%s (every rank within %.0e relative of the CPU's; worst %.2e, %d outside)\n",
         bad ? "CHECK FAILED" : "CHECK PASSED", relTol, worst, bad);

  cudaFree(d_dangling);
  cudaFree(d_change);
  cudaFree(d_blockTotals);
  cudaFree(d_next);
  cudaFree(d_sources);
  cudaFree(d_nodes);
  return bad ? 1 : 0;
}
