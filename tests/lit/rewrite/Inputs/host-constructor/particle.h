#pragma once
#include "vec3.h"

struct Particle {
  Vec3 pos;
  Vec3 vel;
  float mass;
  Particle() : pos(0, 0, 0), vel(0, 0, 0), mass(1.f) {}
};

// Shared by the CPU reference and the kernel; nvcc warns (#20011-D) that Vec3's constructor is
// host code, and compiles it for the device all the same.
__host__ __device__ inline Vec3 advanced(const Particle& p, float dt) {
  return Vec3(p.pos.x + dt * p.vel.x, p.pos.y + dt * p.vel.y, p.pos.z + dt * p.vel.z);
}

__host__ __device__ inline float kinetic(const Particle& p) { return 0.5f * p.mass * dot(p.vel, p.vel); }
