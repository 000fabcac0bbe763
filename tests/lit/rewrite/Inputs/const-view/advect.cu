#include "tracers.cuh"

#include <cstdio>
#include <vector>

__global__ void advect(Tracer* tracers, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < 3; ++k) tracers[i].trail[0][k] = tracers[i].trail[1][k];
  tracers[i].trail[1][0] = tracers[i].x;
  tracers[i].trail[1][1] = tracers[i].y;
  tracers[i].trail[1][2] = tracers[i].z;
  tracers[i].x += dt * tracers[i].y;
  tracers[i].z -= dt * 0.1f;
  tracers[i].age += dt;
}

__global__ void measure(const Tracer* __restrict__ tracers, int n, float* heights) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Tracer *self = tracers + i, *next = neighbourOf(tracers, i, n);
  heights[i] = smoothedHeight(tracers, i) + self->age - next->age;
}

// Tracers are released in turn from the sites, each from its site's position.
__global__ void release(Tracer* tracers, int n, const ReleaseSite* sites, int siteCount) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const ReleaseSite& site = sites[i % siteCount];
  tracers[i].x = site.x;
  tracers[i].y = site.y;
  tracers[i].z = site.height;
  tracers[i].site = site.name;
}

static void download(const Tracer* device, std::vector<Tracer>& host) {
  cudaMemcpy(host.data(), device, host.size() * sizeof(Tracer), cudaMemcpyDeviceToHost);
}

int main() {
  const int n = 4096;
  static const char kSite[] = "inlet";
  std::vector<Tracer> host(n);
  for (int i = 0; i < n; ++i) host[i] = {0.01f * i, 1.0f, 2.0f, 0.0f, {{0, 0, 0}, {0, 0, 0}}, kSite};
  const ReleaseSite hostSites[2] = {{0.0f, 0.0f, 1.0f, kSite}, {1.0f, 0.5f, 2.0f, kSite}};
  ReleaseSite* sites = nullptr;
  cudaMalloc(&sites, sizeof hostSites);
  cudaMemcpy(sites, hostSites, sizeof hostSites, cudaMemcpyHostToDevice);
  Tracer* tracers = nullptr;
  float* heights = nullptr;
  cudaMalloc(&tracers, n * sizeof(Tracer));
  cudaMalloc(&heights, n * sizeof(float));
  cudaMemcpy(tracers, host.data(), n * sizeof(Tracer), cudaMemcpyHostToDevice);
  release<<<(n + 255) / 256, 256>>>(tracers, n / 2, sites, 2);
  for (int step = 0; step < 10; ++step) advect<<<(n + 255) / 256, 256>>>(tracers, n, 0.1f);
  measure<<<(n + 255) / 256, 256>>>(tracers, n, heights);
  std::vector<float> h(n);
  cudaMemcpy(h.data(), heights, n * sizeof(float), cudaMemcpyDeviceToHost);
  download(tracers, host);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i] + host[i].x;
  printf("checksum %.6f\n", sum);
  cudaFree(heights);
  cudaFree(tracers);
  cudaFree(sites);
  return 0;
}
