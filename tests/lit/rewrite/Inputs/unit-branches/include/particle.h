// The particle type and the step both units include; HALF_STEP (given to some units only) picks
// the other branch of the step.
#pragma once

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__device__ inline void step(Particle* p, int i, float dt) {
#ifdef HALF_STEP
  p[i].x += 0.5f * p[i].vx * dt;
#else
  p[i].x += p[i].vx * dt;
  p[i].y += p[i].vy * dt;
  p[i].z += p[i].vz * dt;
#endif
}

__global__ void drift(Particle* p, int n, float dt);
