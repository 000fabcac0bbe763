// What a hook costs the warp that runs it: one block of one warp walks `steps` particles, lane l
// reading the x of particle step * 32 + l, and times its loop with the SM's clock. Built as
// written and instrumented several ways by scripts/bench/hook-cost.sh; each prints the cycles of
// one iteration. One warp, so the figure is latency: what a classifying warp of a one-wave kernel,
// which the kernel waits for, pays per access.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

struct Particle {
  float x, y, z, mass;
};

__global__ void walk(const Particle* particles, int steps, float* sums, long long* cycles) {
  float sum = 0.0f;
  const long long start = clock64();
  for (int step = 0; step < steps; ++step) sum += particles[step * 32 + threadIdx.x].x;
  const long long stop = clock64();
  sums[threadIdx.x] = sum;
  if (threadIdx.x == 0) *cycles = stop - start;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 64;
  if (steps < 1) {
    std::fprintf(stderr, "usage: %s [steps >= 1]\n", argv[0]);
    return 2;
  }
  Particle* particles;
  float* sums;
  long long* cycles;
  if (cudaMalloc(&particles, sizeof(Particle) * 32 * steps) != cudaSuccess ||
      cudaMalloc(&sums, sizeof(float) * 32) != cudaSuccess || cudaMalloc(&cycles, sizeof(long long)) != cudaSuccess) {
    std::fprintf(stderr, "walk: cudaMalloc failed\n");
    return 1;
  }
  cudaMemset(particles, 0, sizeof(Particle) * 32 * steps);
  walk<<<1, 32>>>(particles, steps, sums, cycles);
  long long spent = 0;
  if (cudaMemcpy(&spent, cycles, sizeof spent, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "walk: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("cycles per iteration %.1f\n", spent / (double)steps);
  return 0;
}
