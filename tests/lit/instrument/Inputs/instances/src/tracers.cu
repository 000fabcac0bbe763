#include <cstdio>
#include "advect.cuh"

float runTracers(int n) {
  Tracer* d;
  cudaMalloc(&d, n * sizeof(Tracer));
  cudaMemset(d, 0, n * sizeof(Tracer));
  advect<Tracer, 4><<<(n + 127) / 128, 128>>>(d, n, 0.01f);
  Tracer first;
  cudaMemcpy(&first, d, sizeof(Tracer), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return first.x;
}
