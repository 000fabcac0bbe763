#include <algorithm>

#include "graph.h"

static unsigned int mix(unsigned int x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

Graph makeWebGraph(int n, int meanDegree, unsigned int seed) {
  Graph g;
  g.nodes.resize(n);
  std::vector<int> from, to;
  from.reserve((size_t)n * meanDegree);
  to.reserve((size_t)n * meanDegree);
  for (int u = 0; u < n; ++u) {
    unsigned int h = mix(u * 2654435761U ^ seed);
    // One page in 16 links nowhere; the others have 1 .. 4 * meanDegree - 1 links, mostly few.
    int degree = 0;
    if (h % 16 != 0) {
      float r = (mix(h) >> 8) * (1.0f / 16777216.0f);
      degree = 1 + (int)(r * r * r * (4 * meanDegree - 1));
    }
    for (int k = 0; k < degree; ++k) {
      unsigned int t = mix(h + 0x9e3779b9U * (k + 1));
      // Popular pages: low ids attract most links.
      float s = (t >> 8) * (1.0f / 16777216.0f);
      int v = std::min(n - 1, (int)(s * s * n));
      if (v == u) v = (v + 1) % n;
      from.push_back(u);
      to.push_back(v);
    }
    g.nodes[u].rank = 1.0f / n;
    g.nodes[u].outDegree = degree;
    g.nodes[u].inDegree = 0;
  }
  for (int v : to) g.nodes[v].inDegree++;
  int running = 0;
  for (int u = 0; u < n; ++u) {
    g.nodes[u].firstEdge = running;
    running += g.nodes[u].inDegree;
  }
  std::vector<int> fill(n, 0);
  g.sources.resize(to.size());
  for (size_t e = 0; e < to.size(); ++e) {
    int v = to[e];
    g.sources[g.nodes[v].firstEdge + fill[v]++] = from[e];
  }
  return g;
}
