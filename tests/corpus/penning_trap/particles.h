// Ions in a Penning trap: position and momentum records, the trap's fields and the Boris push,
// shared by the kernels and the CPU check.
#pragma once
#include <cuda_runtime.h>

// Where an ion is, and its charge over mass (which picks its species).
struct __align__(16) Ion {
  float x, y, z;
  float qm;
};

// Its velocity and its statistical weight (how many real ions it stands for).
struct __align__(16) Momentum {
  float ux, uy, uz;
  float weight;
};

// Axial magnetic field B, the quadrupole potential k (z^2 - (x^2 + y^2) / 2) and a weak dipole
// drive along x at frequency omega.
struct TrapField {
  float B;
  float k;
  float drive;
  float omega;

  __host__ __device__ float3 electric(float x, float y, float z, float t) const {
    return make_float3(k * x + drive * cosf(omega * t), k * y, -2.f * k * z);
  }
};

// One Boris step: half the electric kick, the magnetic rotation, the other half kick, then the drift.
__host__ __device__ inline void borisStep(Ion& ion, Momentum& mom, const TrapField& field, float t, float dt) {
  const float3 e = field.electric(ion.x, ion.y, ion.z, t);
  const float h = 0.5f * ion.qm * dt;
  float vx = mom.ux + h * e.x, vy = mom.uy + h * e.y, vz = mom.uz + h * e.z;
  const float tz = h * field.B;
  const float sz = 2.f * tz / (1.f + tz * tz);
  // v' = v- + v- x t, v+ = v- + v' x s, with t and s along z
  const float px = vx + vy * tz, py = vy - vx * tz;
  vx += py * sz;
  vy -= px * sz;
  mom.ux = vx + h * e.x;
  mom.uy = vy + h * e.y;
  mom.uz = vz + h * e.z;
  ion.x += dt * mom.ux;
  ion.y += dt * mom.uy;
  ion.z += dt * mom.uz;
}

// The initial cloud, drawn from counters so that any ion can be redrawn alone: a Gaussian cloud of
// three species (charge over mass 1, 1/2, 1/4) with a small thermal spread and weights in [1, 1.5).
__host__ __device__ inline float counterUniform(unsigned i, unsigned k) {  // (0, 1)
  unsigned x = i * 0x9e3779b9u + k * 0x85ebca6bu + 0x27d4eb2fu;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return (float(x >> 8) + 0.5f) * (1.f / 16777216.f);
}

__host__ __device__ inline float2 counterNormals(unsigned i, unsigned k) {
  const float r = sqrtf(-2.f * logf(counterUniform(i, k)));
  const float a = 6.2831853f * counterUniform(i, k + 1u);
  return make_float2(r * cosf(a), r * sinf(a));
}

__host__ __device__ inline Ion initialIon(int i) {
  const float2 xy = counterNormals(unsigned(i), 0u), zw = counterNormals(unsigned(i), 2u);
  const float species[3] = {1.f, 0.5f, 0.25f};
  return Ion{0.2f * xy.x, 0.2f * xy.y, 0.2f * zw.x, species[i % 3]};
}

__host__ __device__ inline Momentum initialMomentum(int i) {
  const float2 uv = counterNormals(unsigned(i), 4u), w = counterNormals(unsigned(i), 6u);
  return Momentum{0.1f * uv.x, 0.1f * uv.y, 0.1f * w.x, 1.f + 0.5f * counterUniform(unsigned(i), 8u)};
}

// Weighted sums over a group of ions.
struct Diagnostics {
  float kinetic;  // sum of w |u|^2 / 2
  float radial;   // sum of w (x^2 + y^2)
  float axial;    // sum of w z^2
  float escaped;  // weight outside the trap's radius
  float weight;
};
