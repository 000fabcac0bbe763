// Particle record shared by the simulation and the statistics passes.
#pragma once

#include <cstddef>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass;
  int cell;
};

// Squared speed of particle i, on the host (checks) and on the device.
__host__ __device__ inline float speed2(const Particle* p, int i) {
  return p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz;
}

inline std::size_t particleBytes(std::size_t n) { return n * sizeof(Particle); }
