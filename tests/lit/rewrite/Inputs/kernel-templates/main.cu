#include <cstdio>
#include <vector>

#include "body.h"

// A host template that launches the kernels: the device array is a local of each instance.
template <typename Real>
Real kineticEnergy(const std::vector<Body>& host, int steps) {
  int n = static_cast<int>(host.size());
  Body* d_bodies = nullptr;
  Real* d_energy = nullptr;
  cudaMalloc(&d_bodies, n * sizeof(Body));
  cudaMalloc(&d_energy, sizeof(Real));
  cudaMemcpy(d_bodies, host.data(), n * sizeof(Body), cudaMemcpyHostToDevice);
  cudaMemset(d_energy, 0, sizeof(Real));
  for (int s = 0; s < steps; ++s) advance<Euler><<<(n + 127) / 128, 128>>>(d_bodies, n, 0.01f);
  accumulate<Real><<<(n + 127) / 128, 128>>>(d_bodies, n, d_energy);
  Real energy = 0;
  cudaMemcpy(&energy, d_energy, sizeof(Real), cudaMemcpyDeviceToHost);
  cudaFree(d_energy);
  cudaFree(d_bodies);
  return energy;
}

int main() {
  const int n = 1000;
  std::vector<Body> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = {make_float3(i, 0, 0), make_float3(0.01f * i, 1, 0), 1.0f + i % 3, i % 7};
  float e32 = kineticEnergy<float>(host, 10);
  double e64 = kineticEnergy<double>(host, 10);

  Body* d_bodies = nullptr;
  int* d_counts = nullptr;
  cudaMalloc(&d_bodies, n * sizeof(Body));
  cudaMalloc(&d_counts, 64 * sizeof(int));
  cudaMemcpy(d_bodies, host.data(), n * sizeof(Body), cudaMemcpyHostToDevice);
  cudaMemset(d_counts, 0, 64 * sizeof(int));
  countGroups<64><<<(n + 63) / 64, 64>>>(d_bodies, n, d_counts);
  int counts[64];
  cudaMemcpy(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost);
  cudaFree(d_bodies);
  cudaFree(d_counts);
  std::printf("energy %.3f %.3f groups %d %d\n", e32, e64, counts[0], counts[6]);
  return 0;
}
