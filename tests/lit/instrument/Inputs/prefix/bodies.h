// Bodies of a small gravity code and the helpers its kernels share.
#pragma once
#include <cuda_runtime.h>

struct Body {
  float x, y, z;
  float mass;
};

constexpr int kTile = 128;

__device__ inline float pairWeight(const Body& a, const Body& b) { return a.mass * b.mass; }

// Bodies sorted into cells: cell c holds bodies [start[c], start[c + 1]).
struct CellList {
  const int* start;
  int cells;
};
