// Lambert shading with an ambient term and per-material tints; a functor so that the resolve
// kernel can be instantiated with another lighting model.
#pragma once

#include "mesh.h"
#include "raster.cuh"

struct LambertShader {
  float3 light;
  float ambient;
  float3 tints[MATERIAL_COUNT];

  RFUNC float3 operator()(float3 color, float3 normal, int material) const {
    float d = normal.x * light.x + normal.y * light.y + normal.z * light.z;
    float lit = ambient + (1.0f - ambient) * (d > 0.0f ? d : 0.0f);
    float3 t = tints[material];
    return make_float3(color.x * t.x * lit, color.y * t.y * lit, color.z * t.z * lit);
  }
};

RFUNC float3 skyColor() { return make_float3(0.55f, 0.7f, 0.95f); }
