// Scene and path records: spheres with materials, one ray per pixel, the closest hit of each ray.
#pragma once
#include "vec3.h"

struct Sphere {
  float3 center;
  float radius;
  int material;
};

struct Material {
  float3 albedo;
  float3 emission;
  float reflectivity;  // share of the light that goes on along the mirror direction
  float shininess;     // Phong exponent of the highlight
};

// A path segment: where it starts, where it goes, what it still carries, which pixel it feeds.
struct Ray {
  float3 origin;
  float3 dir;
  float3 throughput;
  int pixel;
};

typedef struct {
  float t;
  float3 normal;
  int sphere;  // -1: the ray left the scene
} Hit;

constexpr int kMaxMaterials = 16;
constexpr float kNoHit = 1e30f;
constexpr float kEpsilon = 1e-3f;

struct Camera {
  float3 eye;
  float3 forward, right, up;
  float tanHalfFov;
  int width, height;
};

HD inline float intersectSphere(const Sphere& s, float3 origin, float3 dir) {
  float3 oc = origin - s.center;
  float b = dot(oc, dir);
  float c = dot(oc, oc) - s.radius * s.radius;
  float disc = b * b - c;
  if (disc < 0.0f) return kNoHit;
  float root = sqrtf(disc);
  float t = -b - root;
  if (t > kEpsilon) return t;
  t = -b + root;
  return t > kEpsilon ? t : kNoHit;
}

HD inline float3 skyColor(float3 dir) {
  float k = 0.5f * (dir.y + 1.0f);
  return make_float3(1.0f - 0.5f * k, 1.0f - 0.3f * k, 1.0f);
}
