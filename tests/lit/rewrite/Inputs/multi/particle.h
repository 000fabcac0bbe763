// Shared by both translation units: the struct and the kernel's declaration.
#pragma once

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__global__ void drift(Particle* p, int n, float dt);
