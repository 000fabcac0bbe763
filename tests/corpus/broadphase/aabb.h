// Bodies and their axis-aligned bounding boxes for the collision broad phase.
#pragma once

#include <cuda_runtime.h>

struct Body {
  float3 pos;
  float3 vel;
  float radius;
};

struct AABB {
  float3 min;
  float3 max;
  int id;  // the body it bounds
};

// The world: a long channel, x in [0, length), y and z in [0, width).
struct World {
  float length, width;
  float dt;
};

#ifdef __CUDACC__
#define BP_HD __host__ __device__
#else
#define BP_HD
#endif

BP_HD inline bool overlapsYZ(const AABB& a, const AABB& b) {
  return a.min.y <= b.max.y && b.min.y <= a.max.y && a.min.z <= b.max.z && b.min.z <= a.max.z;
}

// One coordinate moved by v * dt, reflected at the walls [0, size).
BP_HD inline void bounce(float& x, float& v, float dt, float size) {
  x = x + v * dt;
  if (x < 0.0f) {
    x = -x;
    v = -v;
  } else if (x >= size) {
    x = 2.0f * size - x - 1e-3f;
    v = -v;
  }
}
