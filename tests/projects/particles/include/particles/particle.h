// A charged point particle, and the physics shared by the GPU kernels and the CPU reference.
#pragma once

#include <cuda_runtime.h>

#ifndef PARTICLES_MAX_NEIGHBOURS
#error "PARTICLES_MAX_NEIGHBOURS is set by the build (CMakeLists.txt)"
#endif

namespace particles {

struct Particle {
  float3 position;
  float3 velocity;
  float mass;
  float charge;
  int id;
};

struct SimParams {
  float box;      // the particles live in [0, box)^3 and bounce off its walls
  float cutoff;   // pairs farther apart than this do not interact
  float dt;
  float softening;
};

constexpr int kMaxNeighbours = PARTICLES_MAX_NEIGHBOURS;

__host__ __device__ inline float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__host__ __device__ inline float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__host__ __device__ inline float distance2(const Particle& a, const Particle& b) {
  float3 d = a.position - b.position;
  return dot(d, d);
}

// Screened Coulomb-like pair force on `a` from `b`, tapered to zero at the cutoff so that a pair
// crossing it does not make the force jump.
__host__ __device__ inline float3 pairForce(float3 pa, float qa, float3 pb, float qb, const SimParams& params) {
  float3 d = pa - pb;
  float r2 = dot(d, d);
  float rc2 = params.cutoff * params.cutoff;
  if (r2 >= rc2) return make_float3(0.f, 0.f, 0.f);
  float taper = 1.f - r2 / rc2;
  float s = qa * qb * taper * taper / (r2 + params.softening);
  return make_float3(s * d.x, s * d.y, s * d.z);
}

// Keeps one coordinate in [0, box): a particle crossing a wall is put back and bounces.
__host__ __device__ inline void bounce(float& x, float& v, float box) {
  if (x < 0.f || x >= box) {
    v = -v;
    x = fminf(fmaxf(x, 0.f), box * 0.999f);
  }
}

// One explicit Euler step.
__host__ __device__ inline void advance(Particle& p, float3 force, const SimParams& params) {
  float inverseMass = 1.f / p.mass;
  float3 v = p.velocity;
  v.x += params.dt * force.x * inverseMass;
  v.y += params.dt * force.y * inverseMass;
  v.z += params.dt * force.z * inverseMass;
  float3 x = p.position;
  x.x += params.dt * v.x;
  x.y += params.dt * v.y;
  x.z += params.dt * v.z;
  bounce(x.x, v.x, params.box);
  bounce(x.y, v.y, params.box);
  bounce(x.z, v.z, params.box);
  p.velocity = v;
  p.position = x;
}

__host__ __device__ inline float kineticEnergy(const Particle& p) { return 0.5f * p.mass * dot(p.velocity, p.velocity); }

// The particles start on a cubic lattice of this many sites per side, one unit apart.
inline int latticeSide(int n) {
  int side = 1;
  while (side * side * side < n) ++side;
  return side;
}

// Fills `deviceParticles` on the GPU: a jittered lattice with small random velocities, alternating
// charges, deterministic for a given seed (src/init.cu).
cudaError_t initializeParticles(Particle* deviceParticles, int n, unsigned seed, const SimParams& params);

}  // namespace particles
