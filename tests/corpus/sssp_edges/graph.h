// Edge lists and per-vertex state for Bellman-Ford on the GPU.
#pragma once
#include <climits>
#include <vector>

#ifdef __CUDACC__
#define GRAPH_HD __host__ __device__
#else
#define GRAPH_HD
#endif

struct Edge {
  int src;
  int dst;
  int weight;
};

// The same graph without weights: relaxing it gives hop counts (BFS levels).
struct UnitEdge {
  int src;
  int dst;
};

GRAPH_HD inline int weightOf(const Edge& e) { return e.weight; }
GRAPH_HD inline int weightOf(const UnitEdge&) { return 1; }

typedef struct {
  int dist;
  int parent;      // smallest predecessor on a shortest path (the source is its own parent)
  int active;      // distance lowered in the previous round: its out-edges are relaxed in this one
  int nextActive;  // lowered in this round
} VertexState;

const int kUnreached = INT_MAX / 2;

// A connected random graph: a ring through all vertices plus random edges with a bias toward
// nearby vertex ids (as in meshes and road networks), weights 1..100.
std::vector<Edge> makeGraph(int vertices, int randomEdges, unsigned int seed);

// Shortest distances (Dijkstra) and hop counts (BFS) on the CPU.
void referenceDistances(int vertices, const std::vector<Edge>& edges, int source, std::vector<int>& dist,
                        std::vector<int>& hops);
