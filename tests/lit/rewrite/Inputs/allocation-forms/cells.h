// Finite-volume cells and a relaxation sweep over them.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

struct Cell {
  float rho, u, v, e;
};

__global__ void relax(Cell* cells, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[i].u *= 0.5f;
  cells[i].e += cells[i].rho;
}

// Typed device allocation, as many codes wrap cudaMalloc.
template <class T>
T* deviceAlloc(size_t count) {
  T* p = nullptr;
  cudaMalloc(&p, count * sizeof(T));
  return p;
}
