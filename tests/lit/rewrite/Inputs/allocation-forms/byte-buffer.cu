#include <cstdio>
#include <vector>

#include "cells.h"

int main() {
  const int n = 1 << 14;
  std::vector<Cell> host(n, Cell{1.f, 2.f, 3.f, 4.f});
  void* raw = nullptr;
  cudaMalloc(&raw, n * sizeof(Cell));
  Cell* cells = static_cast<Cell*>(raw);
  cudaMemcpy(cells, host.data(), n * sizeof(Cell), cudaMemcpyHostToDevice);
  relax<<<(n + 255) / 256, 256>>>(cells, n);
  cudaMemcpy(host.data(), cells, n * sizeof(Cell), cudaMemcpyDeviceToHost);
  cudaFree(raw);
  std::printf("%.2f %.2f\n", host[5].u, host[n - 1].e);
  return 0;
}
