// Records filled on the host with std::copy into managed and pinned arrays, read by a kernel.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Probe {
  int cell;
  float peak;
  float time;
};

__global__ void record(Probe* probes, int n, const float* field, float t) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float v = field[probes[k].cell];
  if (v > probes[k].peak) {
    probes[k].peak = v;
    probes[k].time = t;
  }
}

int main() {
  const int n = 64, cells = 4096;
  std::vector<Probe> initial(n);
  for (int k = 0; k < n; ++k) initial[k] = Probe{(k * 61) % cells, 0.f, -1.f};
  Probe* probes;  // managed: the host reads the records afterwards
  cudaMallocManaged(&probes, n * sizeof(Probe));
  std::copy(initial.begin(), initial.begin() + n / 2, probes);
  std::copy(initial.begin() + n / 2, initial.end(), probes + n / 2);
  float* field;
  cudaMallocManaged(&field, cells * sizeof(float));
  for (int step = 0; step < 10; ++step) {
    for (int c = 0; c < cells; ++c) field[c] = float((c * 7 + step * 13) % 101);
    record<<<1, n>>>(probes, n, field, float(step));
    cudaDeviceSynchronize();
  }
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += probes[k].peak * 100 + probes[k].time;
  std::printf("probes %d, sum %.1f\n", n, sum);
  cudaFree(probes);
  cudaFree(field);
  return 0;
}
