// Device side of the cloth step: spring forces gathered per particle, integration, ball collision.
#pragma once
#include "cloth.h"

template <class SpringModel>
__global__ void gatherSpringForces(Particle* particles, int n, const Spring* springs, const int* adjStart,
                                   const int* adjSpring, SpringModel model) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 f = make_float3(0, 0, 0);
  for (int e = adjStart[i]; e < adjStart[i + 1]; ++e) {
    const Spring& s = springs[adjSpring[e]];
    const int other = s.a == i ? s.b : s.a;
    f = f + model(particles[i], particles[other], s);
  }
  particles[i].force = f;
}

__device__ void applyForce(Particle& p, const ClothParams& prm) {
  if (p.pinned()) return;
  p.vel.x = prm.drag * (p.vel.x + prm.dt * p.force.x * p.invMass);
  p.vel.y = prm.drag * (p.vel.y + prm.dt * (p.force.y * p.invMass - prm.gravity));
  p.vel.z = prm.drag * (p.vel.z + prm.dt * p.force.z * p.invMass);
  p.pos = p.pos + prm.dt * p.vel;
}

__global__ void integrate(Particle* particles, int n, ClothParams prm) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) applyForce(particles[i], prm);
}

__global__ void collideBall(Particle* particles, int n, float3 centre, float radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle* p = &particles[i];
  const float3 d = p->pos - centre;
  const float dist = length(d);
  if (dist < radius && dist > 0.0f) {
    p->pos = centre + (radius / dist) * d;
    p->vel = make_float3(0, 0, 0);
  }
}

// Elastic energy per spring, summed on the host for the report.
__global__ void springEnergy(const Spring* springs, int m, const Particle* particles, float* energy) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= m) return;
  const float stretch = length(particles[springs[e].b].pos - particles[springs[e].a].pos) - springs[e].rest;
  energy[e] = 0.5f * springs[e].k * stretch * stretch;
}
