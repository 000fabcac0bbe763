// GPU check of loop draws (built and run by scripts/runtime-checks.sh, checked by check_loops.py):
// loops a kernel writes every day, whose counts the profile must hold, exactly without execution
// sampling and within a few percent when each warp draws its iterations: a loop of 12 iterations
// with three accesses in its body, a ragged loop whose lane l runs l + 1 iterations, and a loop
// whose body only calls a helper with two accesses (the draw in force for the helper's hooks), and
// a direct sum of 1,000 iterations, which a classifying warp runs hooked for a prefix only
// (--counted-prefix, within 1 / 32 of the trip count and the draws' spread), and a walk whose length
// the data decides, lane l taking 800 + 8 l steps, which it runs hooked in fewer and fewer steps
// (within 2 / 64 of each lane's steps).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

struct Body {
  float x, y, z, w;
  float vx, vy, vz, m;
};

__device__ float weigh(const Body* bodies, int i) { return bodies[i].m * bodies[i].x; }

__global__ void gather(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 12; ++k) acc += bodies[(i + 37 * k) % n].m * bodies[i].x + bodies[i].y;
  out[i] = acc;
}

__global__ void ragged(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k <= i % 32; ++k) acc += bodies[(i + k) % n].vx;
  out[i] += acc;
}

__global__ void helped(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 8; ++k) acc += weigh(bodies, (i + k) % n);
  out[i] += acc;
}

__global__ void direct(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 1000; ++k) acc += bodies[(i + 7 * k) % n].vy * bodies[i].z;
  out[i] += acc;
}

__global__ void walk(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  int k = 0;
  const int steps = 800 + 8 * (i % 32);
  while (k < steps) {
    const Body& b = bodies[(i + 3 * k++) % n];
    if (b.m < 0.0f) break;  // masses are positive: the walk ends where its steps do
    acc += b.vz;
  }
  out[i] += acc;
}

// usage: loops [launches, default 4]: the sampled checks run more launches, so that the draws'
// spread stays well inside their tolerance.
int main(int argc, char** argv) {
  const int n = 1 << 16, block = 128, launches = argc > 1 ? std::atoi(argv[1]) : 4;
  if (launches < 1) {
    std::fprintf(stderr, "usage: %s [launches >= 1]\n", argv[0]);
    return 2;
  }
  std::vector<Body> host(n);
  for (int i = 0; i < n; ++i) host[i] = {float(i % 97), float(i % 13), 0, 0, float(i % 7), 0, 0, 1.0f + float(i % 5)};
  Body* bodies;
  float* out;
  CHECK(cudaMalloc(&bodies, n * sizeof(Body)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(bodies, host.data(), n * sizeof(Body), cudaMemcpyHostToDevice));
  for (int l = 0; l < launches; ++l) {
    gather<<<n / block, block>>>(bodies, out, n);
    ragged<<<n / block, block>>>(bodies, out, n);
    helped<<<n / block, block>>>(bodies, out, n);
    direct<<<n / block, block>>>(bodies, out, n);
    walk<<<n / block, block>>>(bodies, out, n);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
  CHECK(cudaFree(bodies));
  std::printf("PASS\n");
  return 0;
}
