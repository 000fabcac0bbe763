// One helper for both directions, as simulation codes write it: cudaMemcpyDefault lets the
// runtime tell host from device by the pointers.
#pragma once
#include <cuda_runtime.h>

struct Particle {
  float x, y, z, mass;
};
struct Cell {
  float density, pressure;
};

inline void copyState(Particle* dst, const Particle* src, Cell* dstCells, const Cell* srcCells, int n) {
  cudaMemcpy(dst, src, n * sizeof(Particle), cudaMemcpyDefault);
  cudaMemcpy(dstCells, srcCells, n * sizeof(Cell), cudaMemcpyDefault);
}
