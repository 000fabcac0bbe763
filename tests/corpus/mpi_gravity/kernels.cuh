// The slab's kernels: one thread per owned body.
#pragma once
#include "body.h"

constexpr int kBlock = 256;
constexpr float kSoftening2 = 1e-4f;

__global__ void seedBodies(Body* bodies, int first, int count, int total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) bodies[i] = initialBody(first + i, total);
}

__global__ void pack(const Body* bodies, Source* packed, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  packed[i] = Source{bodies[i].pos.x, bodies[i].pos.y, bodies[i].pos.z, bodies[i].mass};
}

// All-pairs gravity against the shared sources, staged through shared memory a tile at a time.
__global__ void accelerate(Body* bodies, int count, const Source* sources, int total) {
  __shared__ Source tile[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float3 p = i < count ? bodies[i].pos : make_float3(0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f, phi = 0.0f;
  for (int base = 0; base < total; base += kBlock) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < total ? sources[j] : Source{0.0f, 0.0f, 0.0f, 0.0f};
    __syncthreads();
    for (int k = 0; k < kBlock; ++k) {
      const float dx = tile[k].x - p.x, dy = tile[k].y - p.y, dz = tile[k].z - p.z;
      const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + kSoftening2);
      const float m = tile[k].mass * inv;
      ax += m * inv * inv * dx;
      ay += m * inv * inv * dy;
      az += m * inv * inv * dz;
      phi -= m;
    }
    __syncthreads();
  }
  if (i < count) {
    bodies[i].acc = make_float3(ax, ay, az);
    bodies[i].potential = phi;
  }
}

// Kick with the new acceleration, then drift.
__global__ void leapfrog(Body* bodies, int count, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Body& b = bodies[i];
  b.vel.x += b.acc.x * dt;
  b.vel.y += b.acc.y * dt;
  b.vel.z += b.acc.z * dt;
  b.pos.x += b.vel.x * dt;
  b.pos.y += b.vel.y * dt;
  b.pos.z += b.vel.z * dt;
}

// Per block: kinetic energy, potential energy (half of m * phi: each pair is seen from both ends)
// and the checksum, summed in a fixed order.
__global__ void reduceEnergies(const Body* bodies, int count, double* partials) {
  __shared__ double kinetic[kBlock], potential[kBlock], checksum[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  kinetic[threadIdx.x] = potential[threadIdx.x] = checksum[threadIdx.x] = 0.0;
  if (i < count) {
    const Body b = bodies[i];
    kinetic[threadIdx.x] = 0.5 * b.mass * (b.vel.x * b.vel.x + b.vel.y * b.vel.y + b.vel.z * b.vel.z);
    potential[threadIdx.x] = 0.5 * b.mass * b.potential;
    checksum[threadIdx.x] = b.pos.x + 2.0 * b.pos.y + 3.0 * b.pos.z;
  }
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      kinetic[threadIdx.x] += kinetic[threadIdx.x + half];
      potential[threadIdx.x] += potential[threadIdx.x + half];
      checksum[threadIdx.x] += checksum[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[3 * blockIdx.x] = kinetic[0];
    partials[3 * blockIdx.x + 1] = potential[0];
    partials[3 * blockIdx.x + 2] = checksum[0];
  }
}
