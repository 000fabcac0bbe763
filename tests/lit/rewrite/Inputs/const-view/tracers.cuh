// Passive tracers carried by a flow: position, age, the last two positions, and the name of the
// release site they came from.
#pragma once

#include <cuda_runtime.h>

struct Tracer {
  float x, y, z;
  float age;
  float trail[2][3];
  const char* site;
};

// Where tracers are let go: a position and a name.
struct ReleaseSite {
  float x, y, height;
  const char* name;
};

// Height of tracer i, smoothed over its trail. Reads only.
__host__ __device__ inline float smoothedHeight(const Tracer* tracers, int i) {
  return 0.5f * tracers[i].z + 0.25f * (tracers[i].trail[0][2] + tracers[i].trail[1][2]);
}

__device__ inline Tracer const* neighbourOf(Tracer const* tracers, int i, int n) {
  return tracers + (i + 1) % n;
}
