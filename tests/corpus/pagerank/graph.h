// A directed web graph stored for pull-style PageRank: each node lists the nodes linking to it.
#pragma once

#include <vector>

struct Node {
  float rank;
  int outDegree;  // links leaving the node (0: a dangling page)
  int firstEdge;  // first incoming link in Graph::sources
  int inDegree;   // incoming links
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<int> sources;  // source node of each incoming link, grouped by target
};

// A scale-free-ish graph: out-degrees and targets follow skewed hash draws, fixed by `seed`.
Graph makeWebGraph(int n, int meanDegree, unsigned int seed);
