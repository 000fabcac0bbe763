// The rasterizer's per-vertex, per-triangle and per-pixel stages. Everything here is
// __host__ __device__ so that the CPU reference runs the very same arithmetic.
#pragma once

#include <cstdint>
#include <cstring>

#include "mesh.h"

#ifdef __CUDACC__
#define RFUNC __host__ __device__ inline
#else
#define RFUNC inline
#endif

struct Camera {
  float viewProj[16];  // row-major, world to clip space
  int width, height;
  float3 light;        // unit vector towards the sun
};

// A pixel's winner: depth bits (a positive float orders like its bits) over the triangle id, so a
// 64-bit atomicMin keeps the nearest triangle and, at equal depth, the lowest id.
typedef unsigned long long DepthKey;
static const DepthKey kFarKey = ~0ull;

RFUNC DepthKey makeKey(float depth, int triangle) {
  uint32_t bits;
  memcpy(&bits, &depth, sizeof bits);
  return ((DepthKey)bits << 32) | (uint32_t)triangle;
}
RFUNC int keyTriangle(DepthKey key) { return (int)(key & 0xFFFFFFFFu); }

RFUNC ScreenVertex project(const Camera& cam, float3 p) {
  const float* m = cam.viewProj;
  float cx = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3];
  float cy = m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7];
  float cz = m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11];
  float cw = m[12] * p.x + m[13] * p.y + m[14] * p.z + m[15];
  ScreenVertex s;
  s.visible = cw > 0.05f;
  float inv = s.visible ? 1.0f / cw : 0.0f;
  s.x = (cx * inv * 0.5f + 0.5f) * cam.width;
  s.y = (cy * inv * 0.5f + 0.5f) * cam.height;
  s.depth = cz * inv * 0.5f + 0.5f;
  return s;
}

RFUNC float edge(float ax, float ay, float bx, float by, float px, float py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

RFUNC float3 cross3(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// Barycentric weights of pixel centre (px, py) in the projected triangle; false when outside.
RFUNC bool barycentric(const ScreenVertex& a, const ScreenVertex& b, const ScreenVertex& c, float px, float py,
                       float w[3]) {
  float area = edge(a.x, a.y, b.x, b.y, c.x, c.y);
  if (area == 0.0f) return false;
  w[0] = edge(b.x, b.y, c.x, c.y, px, py) / area;
  w[1] = edge(c.x, c.y, a.x, a.y, px, py) / area;
  w[2] = edge(a.x, a.y, b.x, b.y, px, py) / area;
  return w[0] >= 0.0f && w[1] >= 0.0f && w[2] >= 0.0f;
}
