// Host-side construction of the rest mesh and of the animation.
#include <cmath>

#include "mesh.h"

Twist twistForFrame(int frame, int frames) {
  const float t = float(frame) / float(frames);
  Twist twist;
  twist.rate = 0.8f * std::sin(6.2831853f * t);
  twist.phase = 0.01f * frame;
  twist.shift = make_float3(0.1f * std::sin(12.566371f * t), 0.05f * t, 0.f);
  return twist;
}

std::vector<Facet> makeTorus(int u, int v, float R, float r) {
  std::vector<double> cosTheta(u), sinTheta(u), cosPhi(v), sinPhi(v);
  for (int i = 0; i < u; ++i) {
    cosTheta[i] = std::cos(2.0 * M_PI * i / u);
    sinTheta[i] = std::sin(2.0 * M_PI * i / u);
  }
  for (int j = 0; j < v; ++j) {
    cosPhi[j] = std::cos(2.0 * M_PI * j / v);
    sinPhi[j] = std::sin(2.0 * M_PI * j / v);
  }
  std::vector<float3> points(size_t(u) * v);
  for (int i = 0; i < u; ++i)
    for (int j = 0; j < v; ++j) {
      const double ring = R + r * cosPhi[j];
      points[size_t(i) * v + j] = make_float3(float(r * sinPhi[j]), float(ring * cosTheta[i]), float(ring * sinTheta[i]));
    }
  // Each quad of the (theta, phi) grid as two facets whose normals point out of the tube.
  std::vector<Facet> facets(size_t(2) * u * v);
  for (int i = 0; i < u; ++i)
    for (int j = 0; j < v; ++j) {
      const float3 p00 = points[size_t(i) * v + j];
      const float3 p10 = points[size_t((i + 1) % u) * v + j];
      const float3 p11 = points[size_t((i + 1) % u) * v + (j + 1) % v];
      const float3 p01 = points[size_t(i) * v + (j + 1) % v];
      const size_t quad = size_t(i) * v + j;
      facets[2 * quad] = makeFacet(p00, p10, p11);
      facets[2 * quad + 1] = makeFacet(p00, p11, p01);
    }
  return facets;
}
