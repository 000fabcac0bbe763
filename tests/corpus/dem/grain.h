// Grains, the contact law and the simulation parameters, shared by the GPU code and the CPU reference.
#pragma once
#include "vec3.h"

struct Grain {
  float3 pos;
  float3 vel;
  float3 omega;  // angular velocity
  float radius;
  float mass;
};

struct DemParams {
  float kn;        // normal stiffness
  float damping;   // normal damping
  float friction;  // Coulomb coefficient
  float kt;        // tangential viscous coefficient, capped by friction
  float gravity;
  float dt;
  float3 box;  // walls at x = 0, box.x and z = 0, box.z; floor at y = 0
  int3 cells;  // grid of unit cells
};

#define DEM_CELL_CAPACITY 8

// Force on `a` from its contact with `b` (zero when apart); adds the torque on `a` to *torque.
__host__ __device__ inline float3 contactForce(const Grain* a, const Grain* b, const DemParams& p, float3* torque) {
  const float3 d = b->pos - a->pos;
  const float dist = norm(d);
  const float overlap = a->radius + b->radius - dist;
  if (overlap <= 0.0f || dist < 1e-6f) return make_float3(0, 0, 0);
  const float3 n = (1.0f / dist) * d;
  // Velocity of b's surface relative to a's at the contact point.
  const float3 rel = (b->vel - a->vel) + cross(b->omega, (-b->radius) * n) - cross(a->omega, a->radius * n);
  const float vn = dot(rel, n);
  const float fn = p.kn * overlap - p.damping * vn;  // repulsive when positive
  const float3 vt = rel - vn * n;
  const float vtLen = norm(vt);
  float3 ft = make_float3(0, 0, 0);
  if (vtLen > 1e-9f) ft = (fminf(p.kt * vtLen, p.friction * fabsf(fn)) / vtLen) * vt;
  *torque += cross(a->radius * n, ft);
  return ft - fn * n;
}

// Force from the floor and the side walls, treated as grains of infinite mass at rest.
__host__ __device__ inline float3 wallForce(const Grain& g, const DemParams& p) {
  float3 f = make_float3(0, 0, 0);
  const float lo[3] = {g.pos.x, g.pos.y, g.pos.z};
  const float hi[3] = {p.box.x - g.pos.x, 1e30f, p.box.z - g.pos.z};
  const float v[3] = {g.vel.x, g.vel.y, g.vel.z};
  float out[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a) {
    if (lo[a] < g.radius) out[a] += p.kn * (g.radius - lo[a]) - p.damping * fminf(v[a], 0.0f);
    if (hi[a] < g.radius) out[a] -= p.kn * (g.radius - hi[a]) + p.damping * fmaxf(v[a], 0.0f);
  }
  f.x = out[0];
  f.y = out[1];
  f.z = out[2];
  return f;
}

__host__ __device__ inline int clampIndex(int v, int size) { return v < 0 ? 0 : (v >= size ? size - 1 : v); }

__host__ __device__ inline int3 cellOf(float3 pos, const DemParams& p) {
  return make_int3(clampIndex(int(pos.x), p.cells.x), clampIndex(int(pos.y), p.cells.y),
                   clampIndex(int(pos.z), p.cells.z));
}

void runDem(Grain* grains, int n, const DemParams& params, int steps, int* overflow);
