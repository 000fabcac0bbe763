#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "graph.h"

std::vector<Edge> makeGraph(int vertices, int randomEdges, unsigned int seed) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(vertices) + randomEdges);
  unsigned long long state = seed;
  auto next = [&state]() {
    state = state * 2862933555777941757ull + 3037000493ull;
    return static_cast<unsigned int>(state >> 33);
  };
  for (int v = 0; v < vertices; ++v) edges.push_back({v, (v + 1) % vertices, 50 + static_cast<int>(next() % 51)});
  for (int k = 0; k < randomEdges; ++k) {
    int src = static_cast<int>(next() % vertices);
    int span = (next() % 8 == 0) ? vertices : 1024;  // mostly local, sometimes anywhere
    int dst = static_cast<int>((src + next() % span) % vertices);
    if (dst == src) dst = (src + 1) % vertices;
    edges.push_back({src, dst, 1 + static_cast<int>(next() % 100)});
  }
  return edges;
}

void referenceDistances(int vertices, const std::vector<Edge>& edges, int source, std::vector<int>& dist,
                        std::vector<int>& hops) {
  std::vector<int> start(vertices + 1, 0), order(edges.size());
  for (const Edge& e : edges) ++start[e.src + 1];
  for (int v = 0; v < vertices; ++v) start[v + 1] += start[v];
  std::vector<int> cursor(start.begin(), start.end() - 1);
  for (size_t k = 0; k < edges.size(); ++k) order[cursor[edges[k].src]++] = static_cast<int>(k);

  dist.assign(vertices, kUnreached);
  using Item = std::pair<int, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[source] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    auto [d, v] = queue.top();
    queue.pop();
    if (d != dist[v]) continue;
    for (int k = start[v]; k < start[v + 1]; ++k) {
      const Edge& e = edges[order[k]];
      if (d + e.weight < dist[e.dst]) {
        dist[e.dst] = d + e.weight;
        queue.push({dist[e.dst], e.dst});
      }
    }
  }

  hops.assign(vertices, kUnreached);
  std::vector<int> frontier{source}, next;
  hops[source] = 0;
  for (int level = 1; !frontier.empty(); ++level) {
    next.clear();
    for (int v : frontier)
      for (int k = start[v]; k < start[v + 1]; ++k) {
        int w = edges[order[k]].dst;
        if (hops[w] == kUnreached) {
          hops[w] = level;
          next.push_back(w);
        }
      }
    frontier.swap(next);
  }
}
