// A body of the cluster: what each rank keeps for the bodies it owns.
#pragma once
#include <cuda_runtime.h>

struct Body {
  float3 pos;
  float3 vel;
  float3 acc;
  float mass;
  float potential;
  int id;
};

// Position and mass as every rank shares them each step (MPI_Allgather of these).
struct Source {
  float x, y, z, mass;
};

// A Plummer-like sphere drawn from the body's global index, the same on every rank count.
__host__ __device__ inline Body initialBody(int id, int total) {
  auto hash = [](unsigned v) {
    v ^= v >> 16;
    v *= 0x7feb352dU;
    v ^= v >> 15;
    v *= 0x846ca68bU;
    v ^= v >> 16;
    return (v & 0xffffff) / float(0x1000000);
  };
  const unsigned seed = 2654435761U * unsigned(id + 1);
  const float r = 0.2f + hash(seed) * 0.8f;
  const float u = 2.0f * hash(seed + 1) - 1.0f, phi = 6.2831853f * hash(seed + 2);
  const float s = sqrtf(1.0f - u * u);
  Body b;
  b.pos = make_float3(r * s * cosf(phi), r * s * sinf(phi), r * u);
  b.vel = make_float3(-0.3f * b.pos.y, 0.3f * b.pos.x, 0.0f);
  b.acc = make_float3(0.0f, 0.0f, 0.0f);
  b.mass = 1.0f / total;
  b.potential = 0.0f;
  b.id = id;
  return b;
}
