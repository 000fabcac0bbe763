// Lennard-Jones fluid in a periodic cube: the per-atom force record, the pair potential and the box.
#pragma once
#include <cuda_runtime.h>

// What the force kernel accumulates for one atom over its neighbours: its share of the potential
// energy (half of each pair's) and the force on it.
struct Force {
  float v;
  float x, y, z;
};

// Truncated and shifted 12-6 potential, in reduced units.
struct LJParams {
  float epsilon;
  float sigma2;
  float rcut2;
  float shift;  // the potential at the cut-off, subtracted so that it goes to zero there

  LJParams() = default;
  __host__ __device__ LJParams(float eps, float sigma, float rcut)
      : epsilon(eps), sigma2(sigma * sigma), rcut2(rcut * rcut), shift(0.f) {
    const float s2 = sigma2 / rcut2, s6 = s2 * s2 * s2;
    shift = 4.f * epsilon * (s6 * s6 - s6);
  }

  // |F| / r of a pair at squared distance r2, and its (shifted) energy.
  __host__ __device__ float forceOverR(float r2, float& energy) const {
    const float s2 = sigma2 / r2;
    const float s6 = s2 * s2 * s2;
    energy = 4.f * epsilon * (s6 * s6 - s6) - shift;
    return 24.f * epsilon * (2.f * s6 * s6 - s6) / r2;
  }
};

// The periodic box [0, length)^3.
struct Box {
  float length;

  __host__ __device__ float minimumImage(float d) const {
    if (d > 0.5f * length) return d - length;
    if (d < -0.5f * length) return d + length;
    return d;
  }
  __host__ __device__ float wrap(float x) const {
    if (x >= length) x -= length;
    if (x < 0.f) x += length;
    return x >= length ? 0.f : x;
  }
};

// A uniform grid of cells at least as wide as the neighbour-list radius.
struct CellGrid {
  int cellsPerSide;
  float cellSize;

  __host__ __device__ int coord(float x) const {
    const int c = static_cast<int>(x / cellSize);
    return c < 0 ? 0 : (c >= cellsPerSide ? cellsPerSide - 1 : c);
  }
  __host__ __device__ int index(int cx, int cy, int cz) const {
    const int n = cellsPerSide;
    cx = (cx + n) % n;
    cy = (cy + n) % n;
    cz = (cz + n) % n;
    return (cz * n + cy) * n + cx;
  }
  __host__ __device__ int cells() const { return cellsPerSide * cellsPerSide * cellsPerSide; }
};
