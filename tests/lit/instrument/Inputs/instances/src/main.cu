#include <cstdio>
#include "advect.cuh"

float runTracers(int n);

int main() {
  const int n = 1024;
  Massive* d;
  cudaMalloc(&d, n * sizeof(Massive));
  cudaMemset(d, 0, n * sizeof(Massive));
  advect<Massive, 1><<<(n + 127) / 128, 128>>>(d, n, 0.01f);
  Massive first;
  cudaMemcpy(&first, d, sizeof(Massive), cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("%g %g\n", first.x, runTracers(n));
  return 0;
}
