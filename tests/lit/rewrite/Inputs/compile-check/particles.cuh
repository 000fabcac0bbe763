// Particle state and its loads. Device code reads the immutable mass through the read-only data
// cache; host reference code reads it directly.
#pragma once

struct Particle {
  float x, y, z;
  float mass;
};

struct Cell {
  float density;
  float pressure;
};

__host__ __device__ __forceinline__ float loadMass(const Particle* p, int i) {
#ifdef __CUDA_ARCH__
  return __ldg(&p[i].mass);
#else
  return p[i].mass;
#endif
}
