// A triangle soup as an STL file holds it: each facet its unit normal and three corners.
#pragma once
#include <vector>

#include "vec3.h"

struct __align__(16) Facet {
  float3 normal;
  float3 a, b, c;  // counter-clockwise seen from outside
};
static_assert(sizeof(Facet) == 48, "a facet is twelve floats");

// Integral properties of a closed mesh (or of part of one): surface area, enclosed volume and the
// volume-weighted sum of the tetrahedra's centroids (divide by the volume for the centroid).
struct Moments {
  float area;
  float volume;
  float3 moment;
};

// A twist about the z axis: a point at height z turns by rate * z + phase, then the mesh moves by shift.
struct Twist {
  float rate;
  float phase;
  float3 shift;

  __host__ __device__ float3 apply(float3 p) const {
    float s, c;
    sincosf(rate * p.z + phase, &s, &c);
    return make_float3(c * p.x - s * p.y + shift.x, s * p.x + c * p.y + shift.y, p.z + shift.z);
  }
};

__host__ __device__ inline Facet makeFacet(float3 a, float3 b, float3 c) {
  Facet f;
  const float3 n = cross(b - a, c - a);
  f.normal = (1.f / length(n)) * n;
  f.a = a;
  f.b = b;
  f.c = c;
  return f;
}

// The twist of frame `frame` of an animation of `frames` frames.
Twist twistForFrame(int frame, int frames);

// A torus about the x axis (major radius R, tube radius r), u segments around the ring and v around the tube.
std::vector<Facet> makeTorus(int u, int v, float R, float r);
