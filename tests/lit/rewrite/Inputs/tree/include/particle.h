// The particle type and the kernels both translation units share.
#pragma once

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__global__ void drift(Particle* p, int n, float dt);
__global__ void kick(Particle* p, int n, float ez, float dt);
