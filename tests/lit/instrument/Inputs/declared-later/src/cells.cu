#include <cstdio>
#include <vector>

#include "cells.cuh"

// The kernel comes first and calls the helper declared in the header, defined further down.
__global__ void speeds(const Cell* cells, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = soundSpeed(cells[i]);
}

__device__ float soundSpeed(const Cell& c) { return sqrtf(1.4f * c.pressure / c.density); }

int main() {
  const int n = 1024;
  std::vector<Cell> h(n);
  for (int i = 0; i < n; ++i) h[i] = {1.0f + i % 7, 2.0f + i % 5};
  Cell* d = nullptr;
  float* out = nullptr;
  cudaMalloc(&d, n * sizeof(Cell));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(d, h.data(), n * sizeof(Cell), cudaMemcpyHostToDevice);
  speeds<<<(n + 255) / 256, 256>>>(d, out, n);
  std::vector<float> s(n);
  cudaMemcpy(s.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("speed[3] = %.4f\n", s[3]);
  cudaFree(d);
  cudaFree(out);
  return 0;
}
