#pragma once

#include <cuda_runtime.h>

namespace fluid {

// The poly6 smoothing kernel of Müller et al. 2003, in two dimensions.
__host__ __device__ inline float poly6(float r2, float h) {
  const float h2 = h * h;
  if (r2 >= h2) return 0.f;
  const float d = h2 - r2;
  return 4.f / (3.14159265f * h2 * h2 * h2 * h2) * d * d * d;
}

}  // namespace fluid
