// Shading and integration kernels whose by-value parameters are read in different ways.
#include "lighting.h"

#include <cstdio>
#include <vector>

template <class Lighting>
__global__ void shade(const Sample* samples, float3* out, int n, Lighting lighting) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = lighting(samples[i].albedo, samples[i].normal, samples[i].material);
}

__device__ float clampedStep(const StepParams& p, float x) { return fminf(fmaxf(x, p.bounds[0]), p.bounds[1]); }

// Reads its parameters through a const reference and by member.
__global__ void drift(Body* bodies, int n, StepParams params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bodies[i].pos.x = clampedStep(params, bodies[i].pos.x + params.dt * bodies[i].vel.x);
}

// Halves its step in place: the parameter is written.
__global__ void settle(Body* bodies, int n, StepParams params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  params.dt *= 0.5f;
  bodies[i].vel.x *= params.damping * params.dt;
}

__device__ void tighten(StepParams& p) { p.bounds[1] = fminf(p.bounds[1], 1.0f); }

// Hands its parameter to a function that may change it.
__global__ void confine(Body* bodies, int n, StepParams params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tighten(params);
  bodies[i].pos.y = clampedStep(params, bodies[i].pos.y);
}

// Declared before it is defined: both declarations would have to carry the annotation.
__global__ void damp(Body* bodies, int n, StepParams params);

__global__ void damp(Body* bodies, int n, StepParams params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bodies[i].vel.y *= params.damping;
}

int main() {
  const int n = 1 << 12;
  Sample* samples;
  float3* colours;
  Body* bodies;
  cudaMalloc(&samples, n * sizeof(Sample));
  cudaMalloc(&colours, n * sizeof(float3));
  cudaMalloc(&bodies, n * sizeof(Body));
  cudaMemset(samples, 0, n * sizeof(Sample));
  cudaMemset(bodies, 0, n * sizeof(Body));
  Lambert lambert{make_float3(0.0f, 0.0f, 1.0f), 0.2f, {}};
  for (int m = 0; m < kMaterials; ++m) lambert.tints[m] = make_float3(1.0f, 0.5f + 0.1f * m, 0.25f);
  StepParams params{0.01f, 0.99f, {-1.0f, 1.0f}};
  shade<<<n / 256, 256>>>(samples, colours, n, lambert);
  drift<<<n / 256, 256>>>(bodies, n, params);
  settle<<<n / 256, 256>>>(bodies, n, params);
  confine<<<n / 256, 256>>>(bodies, n, params);
  damp<<<n / 256, 256>>>(bodies, n, params);
  std::vector<float3> host(n);
  cudaMemcpy(host.data(), colours, n * sizeof(float3), cudaMemcpyDeviceToHost);
  std::printf("%g\n", host[0].x);
  return 0;
}
