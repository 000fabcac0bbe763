// nvcc warns about the kernel's unused variable; Clang alone warns about the string arithmetic.
#include <cstdio>

struct Cell {
  float mass, heat;
};

__global__ void warm(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int unused = 3;
  if (i < n) cells[i].heat += 0.5f * cells[i].mass;
}

int main() {
  const char* label = "cells: " + 1;
  Cell* cells;
  cudaMalloc(&cells, 256 * sizeof(Cell));
  warm<<<1, 256>>>(cells, 256);
  cudaDeviceSynchronize();
  std::printf("%s%d\n", label, 256);
  return 0;
}
