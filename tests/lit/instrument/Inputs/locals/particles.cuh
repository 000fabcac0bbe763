// Particles with small vector members, and the helpers a kernel calls on them.
#pragma once

struct Vec3 {
  float x, y, z;
};

struct Particle {
  Vec3 pos, vel;
  float mass;
  int cell;
};

__device__ inline float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ inline float kinetic(const Particle& p) { return 0.5f * p.mass * dot(p.vel, p.vel); }

// Reads the cell's weight from a global table as well as the particle.
__device__ inline float weighted(const Particle& p, const float* cellWeight) { return p.mass * cellWeight[p.cell]; }

// Sums over the particle's history: a loop, whose count the profile keeps.
__device__ inline float damped(const Particle& p, int steps) {
  float v = p.vel.x;
  for (int s = 0; s < steps; ++s) v *= 0.99f;
  return v;
}

template <typename T>
__device__ inline T scaled(const Vec3& v, T factor) {
  return factor * (v.x + v.y + v.z);
}
