// The particle type and the step both units include. WITH_Z gives a unit's Particle a third
// coordinate; FAST gives a unit's step a __restrict__ pointer (relayout reads its arrays through
// restrict locals there, and through the parameter elsewhere).
#pragma once

struct Particle {
  float x, y;
#ifdef WITH_Z
  float z;
#endif
  float vx, vy;
};

#ifdef FAST
__device__ inline void step(Particle* __restrict__ p, int i, float dt) {
#else
__device__ inline void step(Particle* p, int i, float dt) {
#endif
  p[i].x += p[i].vx * dt;
  p[i].y += p[i].vy * dt;
}

__global__ void drift(Particle* p, int n, float dt);
