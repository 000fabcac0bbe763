// Light models for the shading step; the same template serves the kernel and the CPU reference.
#pragma once
#include "scene.h"

struct Lambert {
  HD static float3 eval(const Material& m, float3 normal, float3 toLight, float3 /*toEye*/) {
    float cosine = fmaxf(dot(normal, toLight), 0.0f);
    return cosine * m.albedo;
  }
};

struct Phong {
  HD static float3 eval(const Material& m, float3 normal, float3 toLight, float3 toEye) {
    float cosine = fmaxf(dot(normal, toLight), 0.0f);
    float3 mirror = reflect(-1.0f * toLight, normal);
    float highlight = powf(fmaxf(dot(mirror, toEye), 0.0f), m.shininess);
    return cosine * m.albedo + make_float3(highlight, highlight, highlight);
  }
};

// Light arriving at the eye from one hit, lit by one directional light; `visible` is 0 in shadow.
template <typename LightModel>
HD float3 shade(const Hit& hit, const Material& m, float3 rayDir, float3 toLight, float visible) {
  float3 direct = LightModel::eval(m, hit.normal, toLight, -1.0f * rayDir);
  return m.emission + (visible * (1.0f - m.reflectivity)) * direct;
}

HD inline bool occluded(const Sphere* spheres, int count, float3 origin, float3 dir) {
  for (int s = 0; s < count; ++s)
    if (intersectSphere(spheres[s], origin, dir) < kNoHit) return true;
  return false;
}

// One bounce of a path at its closest hit: add what reaches the eye, then continue along the mirror
// direction with what the surface reflects (or end the path when it left the scene or carries little).
template <typename LightModel>
HD void shadeBounce(Ray& ray, const Hit& hit, const Sphere* spheres, int sphereCount, const Material* materials,
                    float3 toLight, float3* radiance) {
  if (ray.pixel < 0) return;
  if (hit.sphere < 0) {
    radiance[ray.pixel] += ray.throughput * skyColor(ray.dir);
    ray.pixel = -1;
    return;
  }
  const Material& m = materials[spheres[hit.sphere].material];
  float3 point = ray.origin + hit.t * ray.dir;
  float3 lifted = point + kEpsilon * hit.normal;
  float visible = occluded(spheres, sphereCount, lifted, toLight) ? 0.0f : 1.0f;
  radiance[ray.pixel] += ray.throughput * shade<LightModel>(hit, m, ray.dir, toLight, visible);
  ray.throughput = m.reflectivity * (ray.throughput * m.albedo);
  ray.origin = lifted;
  ray.dir = reflect(ray.dir, hit.normal);
  if (fmaxf(ray.throughput.x, fmaxf(ray.throughput.y, ray.throughput.z)) < 0.01f) ray.pixel = -1;
}

HD inline void closestHit(const Ray& ray, const Sphere* spheres, int sphereCount, Hit* hit) {
  hit->t = kNoHit;
  hit->sphere = -1;
  if (ray.pixel < 0) return;
  for (int s = 0; s < sphereCount; ++s) {
    float t = intersectSphere(spheres[s], ray.origin, ray.dir);
    if (t < hit->t) {
      hit->t = t;
      hit->sphere = s;
    }
  }
  if (hit->sphere >= 0) hit->normal = normalize(ray.origin + hit->t * ray.dir - spheres[hit->sphere].center);
}

HD inline Ray primaryRay(const Camera& cam, int x, int y) {
  float u = (2.0f * (x + 0.5f) / cam.width - 1.0f) * cam.tanHalfFov * cam.width / cam.height;
  float v = (1.0f - 2.0f * (y + 0.5f) / cam.height) * cam.tanHalfFov;
  Ray r;
  r.origin = cam.eye;
  r.dir = normalize(cam.forward + u * cam.right + v * cam.up);
  r.throughput = make_float3(1.0f, 1.0f, 1.0f);
  r.pixel = y * cam.width + x;
  return r;
}
