// Layered tissue for photon migration (MCML-style): slabs stacked along z, index-matched.
#pragma once

#define MAX_LAYERS 6

struct Layer {
  float z0, z1;  // top and bottom, cm
  float mua;     // absorption coefficient, 1/cm
  float mus;     // scattering coefficient, 1/cm
  float g;       // scattering anisotropy
};

// Skin-like stack: epidermis, dermis, subcutaneous fat, muscle.
inline int defaultTissue(Layer* layers) {
  const Layer stack[] = {{0.0f, 0.01f, 4.0f, 300.0f, 0.80f},
                         {0.01f, 0.20f, 2.0f, 200.0f, 0.85f},
                         {0.20f, 0.45f, 1.0f, 120.0f, 0.90f},
                         {0.45f, 1.00f, 2.5f, 90.0f, 0.92f}};
  int count = (int)(sizeof(stack) / sizeof(stack[0]));
  for (int l = 0; l < count; ++l) layers[l] = stack[l];
  return count;
}
