// All-pairs gravity, tiled through shared memory, and the leapfrog updates.
#pragma once
#include "body.h"

#define TILE 256

__constant__ float c_softening2;
__constant__ float c_G;

template <typename T>
__device__ inline T inverseCube(T r2) {
  const T inv = rsqrt(r2);
  return inv * inv * inv;
}

__device__ inline float3 accumulate(float3 acc, float3 me, float4 other) {
  const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
  const float s = other.w * inverseCube(dx * dx + dy * dy + dz * dz + c_softening2);
  acc.x += dx * s;
  acc.y += dy * s;
  acc.z += dz * s;
  return acc;
}

__global__ void computeAccelerations(Body* bodies, int n) {
  __shared__ float4 tile[TILE];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float3 me = i < n ? bodies[i].pos : make_float3(0, 0, 0);
  float3 acc = make_float3(0, 0, 0);
  for (int start = 0; start < n; start += TILE) {
    const int j = start + threadIdx.x;
    tile[threadIdx.x] = j < n ? make_float4(bodies[j].pos.x, bodies[j].pos.y, bodies[j].pos.z, bodies[j].mass)
                              : make_float4(0, 0, 0, 0);
    __syncthreads();
    const int count = min(TILE, n - start);
    for (int k = 0; k < count; ++k) acc = accumulate(acc, me, tile[k]);
    __syncthreads();
  }
  if (i < n) bodies[i].acc = make_float3(c_G * acc.x, c_G * acc.y, c_G * acc.z);
}

__global__ void kickDrift(Body* bodies, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Body b = bodies[i];
  b.vel.x += 0.5f * dt * b.acc.x;
  b.vel.y += 0.5f * dt * b.acc.y;
  b.vel.z += 0.5f * dt * b.acc.z;
  b.pos.x += dt * b.vel.x;
  b.pos.y += dt * b.vel.y;
  b.pos.z += dt * b.vel.z;
  bodies[i] = b;
}

__global__ void kick(Body* bodies, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bodies[i].vel.x += 0.5f * dt * bodies[i].acc.x;
  bodies[i].vel.y += 0.5f * dt * bodies[i].acc.y;
  bodies[i].vel.z += 0.5f * dt * bodies[i].acc.z;
}

// Each body's share of the potential energy (half of its pair terms) and its kinetic energy.
__global__ void bodyEnergy(const Body* bodies, int n, float* kinetic, float* potential) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float phi = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    const float dx = bodies[j].pos.x - bodies[i].pos.x, dy = bodies[j].pos.y - bodies[i].pos.y,
                dz = bodies[j].pos.z - bodies[i].pos.z;
    phi -= bodies[j].mass * rsqrtf(dx * dx + dy * dy + dz * dz + c_softening2);
  }
  const float3 v = bodies[i].vel;
  kinetic[i] = 0.5f * bodies[i].mass * (v.x * v.x + v.y * v.y + v.z * v.z);
  potential[i] = 0.5f * c_G * bodies[i].mass * phi;
}
