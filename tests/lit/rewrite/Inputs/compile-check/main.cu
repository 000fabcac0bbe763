#include <cstdio>
#include <cuda_runtime.h>

#include "particles.cuh"

__global__ void weigh(const Particle* p, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = loadMass(p, i) * (p[i].x + p[i].y + p[i].z);
}

__global__ void relax(Cell* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i].pressure = 0.4f * c[i].density;
}

int main() {
  const int n = 1 << 16;
  Particle* d_p;
  Cell* d_c;
  float* d_out;
  cudaMalloc(&d_p, n * sizeof(Particle));
  cudaMalloc(&d_c, n * sizeof(Cell));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemset(d_p, 0, n * sizeof(Particle));
  cudaMemset(d_c, 0, n * sizeof(Cell));
  weigh<<<(n + 255) / 256, 256>>>(d_p, d_out, n);
  relax<<<(n + 255) / 256, 256>>>(d_c, n);
  float first = 0.0f;
  cudaMemcpy(&first, d_out, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("%g\n", first);
  cudaFree(d_p);
  cudaFree(d_c);
  cudaFree(d_out);
  return 0;
}
