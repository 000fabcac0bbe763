// A particle update with a __device__ helper, a loop, a gather and a whole-element copy.
#include <cstdio>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass;
  int next;
};

__device__ float kinetic(const Particle* p, int i) {
  return 0.5f * p[i].mass * (p[i].vx * p[i].vx + p[i].vy * p[i].vy);
}

__global__ void step(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i].x += p[i].vx * dt;
  for (int k = 0; k < 4; ++k) {
    int j = p[i].next;
    while (j > 0) j = p[j].next;
    p[i].vy = kinetic(p, i);
  }
  p[i].mass++;
  atomicAdd(&p[i].z, 1.0f);
}

__global__ void copyFirst(Particle* out, const Particle* in) {
  out[threadIdx.x] = in[0];
}

int main() {
  Particle* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(Particle));
  step<<<1, 64>>>(d, 64, 0.1f);
  copyFirst<<<1, 32>>>(d, d);
  cudaFree(d);
  std::printf("done\n");
  return 0;
}

// Arrays declared in device code are not global-memory layouts: left alone.
__global__ void tiles(float* out) {
  __shared__ Particle tile[32];
  Particle mine[2];
  tile[threadIdx.x].x = out[threadIdx.x];
  mine[threadIdx.x & 1].y = 1.0f;
  out[threadIdx.x] = tile[threadIdx.x].x + mine[0].y;
}
