#include "particles/kernels.cuh"

// Mean particles per occupied cell.
float runStats(const Particle* d, int n) {
  int* counts = nullptr;
  cudaMalloc(&counts, 16 * sizeof(int));
  cudaMemset(counts, 0, 16 * sizeof(int));
  countCells<<<4, 128>>>(d, n, counts);
  int h[16];
  cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(counts);
  int used = 0;
  for (int c = 0; c < 16; ++c) used += h[c] > 0;
  return used ? float(n) / used : 0.f;
}
