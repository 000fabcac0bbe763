#include <cstdio>
#include <vector>

#include "particles/kernels.cuh"
#include "forces.cu"

__global__ void totalMomentum(const Particle* p, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, momentum<0>(p, i) + momentum<2>(p, i));
}

float runStats(const Particle* d, int n);

int main() {
  const int n = 1024;
  std::vector<Particle> h(n);
  for (int i = 0; i < n; ++i) h[i] = Particle{float(i), 0.f, 0.f, 1.f, 0.5f, 0.25f, 2.f, i % 16};
  Particle* d = nullptr;
  cudaMalloc(&d, particleBytes(n));
  cudaMemcpy(d, h.data(), particleBytes(n), cudaMemcpyHostToDevice);
  integrate<<<(n + 127) / 128, 128>>>(d, n, 0.1f);
  drag<<<(n + 127) / 128, 128>>>(d, n, 0.01f);
  float* m = nullptr;
  cudaMalloc(&m, sizeof(float));
  cudaMemset(m, 0, sizeof(float));
  totalMomentum<<<(n + 127) / 128, 128>>>(d, n, m);
  float total = 0.f;
  cudaMemcpy(&total, m, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("momentum %.3f cells %.1f\n", total, runStats(d, n));
  cudaFree(m);
  cudaFree(d);
  return 0;
}
