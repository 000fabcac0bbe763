#pragma once

struct Body {
  float3 pos;
  float3 vel;
  float mass;
  int group;
};

// Kernels templated on precision and on a policy; the struct parameter itself is not a template parameter.
template <typename Real>
__global__ void accumulate(const Body* bodies, int n, Real* energy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Real v2 = Real(bodies[i].vel.x) * bodies[i].vel.x + Real(bodies[i].vel.y) * bodies[i].vel.y;
  atomicAdd(energy, Real(0.5) * bodies[i].mass * v2);
}

template <int BLOCK>
__global__ void countGroups(const Body* __restrict__ bodies, int n, int* counts) {
  __shared__ int local[BLOCK];
  local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) atomicAdd(&local[bodies[i].group % BLOCK], 1);
  __syncthreads();
  if (threadIdx.x < BLOCK) atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
}

struct Euler {
  __device__ static float3 step(float3 p, float3 v, float dt) {
    return make_float3(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt);
  }
};

template <class Integrator>
__global__ void advance(Body* bodies, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bodies[i].pos = Integrator::step(bodies[i].pos, bodies[i].vel, dt);
}
