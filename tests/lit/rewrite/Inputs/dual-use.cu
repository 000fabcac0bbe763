// A contact law shared by the kernel and the CPU reference: the kernel passes elements of the
// device array, the reference elements of its host copy.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct Body {
  float x, y, r, m;
};

__host__ __device__ inline float overlap(const Body* a, const Body* b) {
  float dx = b->x - a->x, dy = b->y - a->y;
  return fmaxf(a->r + b->r - sqrtf(dx * dx + dy * dy), 0.f);
}

__global__ void contacts(const Body* bodies, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.f;
  for (int j = 0; j < n; ++j)
    if (j != i) sum += overlap(&bodies[i], bodies + j) * bodies[j].m;
  out[i] = sum;
}

static std::vector<float> reference(const std::vector<Body>& bodies) {
  std::vector<float> out(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i)
    for (size_t j = 0; j < bodies.size(); ++j)
      if (j != i) out[i] += overlap(&bodies[i], &bodies[j]) * bodies[j].m;
  return out;
}

int main() {
  const int n = 512;
  std::vector<Body> host(n);
  for (int i = 0; i < n; ++i) host[i] = Body{0.1f * (i % 32), 0.1f * (i / 32), 0.06f + 0.01f * (i % 3), 1.f + i % 5};
  Body* device;
  float* out;
  cudaMalloc(&device, n * sizeof(Body));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(device, host.data(), n * sizeof(Body), cudaMemcpyHostToDevice);
  contacts<<<(n + 127) / 128, 128>>>(device, n, out);
  std::vector<float> got(n);
  cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> want = reference(host);
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
