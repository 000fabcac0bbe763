// A program nvcc builds (with warning #20011-D for the host call in scaled) but Clang cannot
// compile for the device; the field access under __CUDA_ARCH__ is seen by no host-side parse.
#include <cstdio>

struct Particle {
  float x, y, z, w;
};

float hostScale() { return 2.0f; }

__host__ __device__ float scaled(float v) { return v * hostScale(); }

__global__ void step(Particle* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 800
  p[i].w = p[i].x;
#endif
  p[i].x = scaled(p[i].y) + p[i].z;
}

int main() {
  const int n = 1024;
  Particle* d = nullptr;
  cudaMalloc(&d, n * sizeof(Particle));
  step<<<(n + 255) / 256, 256>>>(d, n);
  cudaFree(d);
  std::printf("done\n");
  return 0;
}
