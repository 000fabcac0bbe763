#include "particles.h"

namespace {

constexpr int kBlock = 256;

__device__ inline float fieldAt(float x, float y) { return 0.5f * sinf(0.1f * x) + 0.25f * cosf(0.1f * y); }

__global__ void push(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float qm = p[i].charge / p[i].mass;
  p[i].vx += qm * fieldAt(p[i].x, p[i].y) * dt;
  p[i].vy -= qm * fieldAt(p[i].y, p[i].x) * dt;
  p[i].x += p[i].vx * dt;
  p[i].y += p[i].vy * dt;
  p[i].z += p[i].vz * dt;
}

}  // namespace

void pushParticles(Particle* particles, int count, float dt, cudaStream_t stream) {
  int blocks = (count + kBlock - 1) / kBlock;
  push<<<blocks, kBlock, 0, stream>>>(particles, count, dt);
  CHECK_CUDA(cudaGetLastError());
}
