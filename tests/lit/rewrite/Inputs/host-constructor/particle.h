#pragma once
#include "vec3.h"

struct Particle {
  Vec3 pos;
  Vec3 vel;
  float mass;
  Particle() : pos(0, 0, 0), vel(0, 0, 0), mass(1.f) {}
};

__host__ __device__ inline float kinetic(const Particle& p) { return 0.5f * p.mass * dot(p.vel, p.vel); }

// The CPU reference's step. Marked for both sides when the code was ported, never called on the
// device: nvcc warns (#20011-D) that Vec3's constructor is host code.
__host__ __device__ Vec3 advanced(const Particle& p, float dt);
