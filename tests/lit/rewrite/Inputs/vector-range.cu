// A pinned particle array the kernel updates; the CPU reference starts from a copy of it.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Particle {
  float x;
  float v;
};

__global__ void push(Particle* p, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x += dt * p[i].v;
}

static void pushCpu(std::vector<Particle>& p, float dt) {
  for (Particle& q : p) q.x += dt * q.v;
}

int main() {
  const int n = 4096;
  Particle* host = nullptr;
  cudaMallocHost(&host, n * sizeof(Particle));
  for (int i = 0; i < n; ++i) host[i] = Particle{float(i), 0.5f};
  std::vector<Particle> reference(host, host + n);
  const std::vector<Particle> upper(host + n / 2, host + n);
  Particle* device = nullptr;
  cudaMalloc(&device, n * sizeof(Particle));
  cudaMemcpy(device, host, n * sizeof(Particle), cudaMemcpyHostToDevice);
  push<<<(n + 255) / 256, 256>>>(device, 0.1f, n);
  cudaMemcpy(host, device, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  pushCpu(reference, 0.1f);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i].x != reference[i].x;
  std::printf("%d wrong, upper starts at %g\n", wrong, upper.front().x);
  cudaFree(device);
  cudaFreeHost(host);
  return wrong != 0;
}
