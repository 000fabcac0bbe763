// A soft-sphere contact law shared by the kernel and the CPU reference. The law calls helpers
// that take the same element pointers: the kernel passes elements of the device array, the
// reference elements of its host copy, and each goes through the whole chain.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Grain {
  float x, y, r, m;
};

__host__ __device__ inline float separation(const Grain* a, const Grain* b) {
  float dx = b->x - a->x, dy = b->y - a->y;
  return sqrtf(dx * dx + dy * dy);
}

__host__ __device__ inline float overlap(const Grain* a, const Grain* b) {
  return fmaxf(a->r + b->r - separation(a, b), 0.f);
}

// Hertzian normal force magnitude, scaled by the reduced mass.
__host__ __device__ inline float contactForce(const Grain* a, const Grain* b, float stiffness) {
  float delta = overlap(a, b);
  float reduced = a->m * b->m / (a->m + b->m);
  return stiffness * reduced * delta * sqrtf(delta);
}

__global__ void contacts(const Grain* grains, int n, float stiffness, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.f;
  for (int j = 0; j < n; ++j)
    if (j != i) sum += contactForce(grains + i, &grains[j], stiffness);
  out[i] = sum;
}

static std::vector<float> reference(const std::vector<Grain>& grains, float stiffness) {
  std::vector<float> out(grains.size());
  for (size_t i = 0; i < grains.size(); ++i)
    for (size_t j = 0; j < grains.size(); ++j)
      if (j != i) out[i] += contactForce(&grains[i], &grains[j], stiffness);
  return out;
}

int main() {
  const int n = 512;
  const float stiffness = 40.f;
  std::vector<Grain> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = Grain{0.1f * (i % 32), 0.1f * (i / 32), 0.05f + 0.01f * (i % 4), 1.f + 0.5f * (i % 3)};
  Grain* device;
  float* out;
  cudaMalloc(&device, n * sizeof(Grain));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(device, host.data(), n * sizeof(Grain), cudaMemcpyHostToDevice);
  contacts<<<(n + 127) / 128, 128>>>(device, n, stiffness, out);
  std::vector<float> got(n);
  cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> want = reference(host, stiffness);
  int wrong = 0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    wrong += std::fabs(got[i] - want[i]) > 1e-4f * (1.f + std::fabs(want[i]));
    sum += got[i];
  }
  std::printf("%d wrong, sum %.4f\n", wrong, sum);
  cudaFree(device);
  cudaFree(out);
  return wrong != 0;
}
