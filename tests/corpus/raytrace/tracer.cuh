// The wavefront kernels: one ray per pixel, traced and shaded bounce by bounce.
#pragma once
#include "shading.h"

__constant__ Material c_materials[kMaxMaterials];

__global__ void generateRays(Camera cam, Ray* rays, float3* radiance) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cam.width || y >= cam.height) return;
  int i = y * cam.width + x;
  rays[i] = primaryRay(cam, x, y);
  radiance[i] = make_float3(0.0f, 0.0f, 0.0f);
}

__global__ void traceRays(const Ray* rays, int n, const Sphere* spheres, int sphereCount, Hit* hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) closestHit(rays[i], spheres, sphereCount, &hits[i]);
}

template <typename LightModel>
__global__ void shadeRays(Ray* rays, const Hit* hits, int n, const Sphere* spheres, int sphereCount, float3 toLight,
                          float3* radiance) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Ray& ray = rays[i];
  shadeBounce<LightModel>(ray, hits[i], spheres, sphereCount, c_materials, toLight, radiance);
}

__global__ void toneMap(const float3* radiance, int n, uchar4* pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 c = radiance[i];
  auto encode = [](float v) { return static_cast<unsigned char>(255.0f * powf(v / (1.0f + v), 1.0f / 2.2f) + 0.5f); };
  pixels[i] = make_uchar4(encode(c.x), encode(c.y), encode(c.z), 255);
}
