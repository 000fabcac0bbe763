// A star of one of the two galaxies.
#pragma once
#include <cuda_runtime.h>

struct Body {
  float3 pos;
  float3 vel;
  float3 acc;  // acceleration at pos
  float mass;
  int galaxy;  // 0 or 1
};
