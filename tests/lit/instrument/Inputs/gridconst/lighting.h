// Per-material Lambert lighting, passed to the shading kernel by value so that another model can
// be swapped in as a template argument.
#pragma once

#include <cuda_runtime.h>

constexpr int kMaterials = 4;

struct Lambert {
  float3 light;
  float ambient;
  float3 tints[kMaterials];

  __host__ __device__ float3 operator()(float3 albedo, float3 normal, int material) const {
    float d = normal.x * light.x + normal.y * light.y + normal.z * light.z;
    float lit = ambient + (1.0f - ambient) * (d > 0.0f ? d : 0.0f);
    const float3& t = tints[material];
    return make_float3(albedo.x * t.x * lit, albedo.y * t.y * lit, albedo.z * t.z * lit);
  }
};

struct Sample {
  float3 albedo;
  float3 normal;
  int material;
};

struct StepParams {
  float dt;
  float damping;
  float bounds[2];
};

struct Body {
  float3 pos;
  float3 vel;
};
