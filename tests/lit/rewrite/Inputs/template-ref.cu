// A step shared by the kernel and the CPU reference, templated on where it counts its events:
// the particle is taken by reference whatever the counter.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

struct Walker {
  float x, v;
  int bounces;
};

struct DeviceCounter {
  unsigned* hits;
  __device__ void count() { atomicAdd(hits, 1u); }
};

struct HostCounter {
  unsigned hits = 0;
  __host__ __device__ void count() { ++hits; }
};

template <typename Counter>
__host__ __device__ void advance(Walker& w, float dt, Counter& counter) {
  w.x += dt * w.v;
  if (w.x < 0.f || w.x > 1.f) {
    w.v = -w.v;
    w.x = w.x < 0.f ? -w.x : 2.f - w.x;
    ++w.bounces;
    counter.count();
  }
}

__global__ void walk(Walker* walkers, int n, float dt, int steps, DeviceCounter counter) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int s = 0; s < steps; ++s) advance(walkers[i], dt, counter);
}

int main() {
  const int n = 1000, steps = 50;
  const float dt = 0.05f;
  std::vector<Walker> host(n);
  for (int i = 0; i < n; ++i) host[i] = Walker{(i % 97) / 97.f, 0.3f + (i % 13) * 0.1f, 0};
  std::vector<Walker> reference = host;
  HostCounter hostCounter;
  for (Walker& w : reference)
    for (int s = 0; s < steps; ++s) advance(w, dt, hostCounter);

  Walker* d;
  unsigned* hits;
  cudaMalloc(&d, n * sizeof(Walker));
  cudaMalloc(&hits, sizeof(unsigned));
  cudaMemset(hits, 0, sizeof(unsigned));
  cudaMemcpy(d, host.data(), n * sizeof(Walker), cudaMemcpyHostToDevice);
  walk<<<(n + 127) / 128, 128>>>(d, n, dt, steps, DeviceCounter{hits});
  unsigned gpuHits = 0;
  cudaMemcpy(&gpuHits, hits, sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(host.data(), d, n * sizeof(Walker), cudaMemcpyDeviceToHost);
  // The GPU contracts w.x += dt * w.v into one rounding: a walker grazing a wall may bounce one
  // step apart from the CPU's.
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += std::abs(host[i].bounces - reference[i].bounces) > 1;
  std::printf("%d wrong, %u bounces on the GPU, %u on the CPU\n", wrong, gpuHits, hostCounter.hits);
  cudaFree(d);
  cudaFree(hits);
  return wrong != 0;
}
