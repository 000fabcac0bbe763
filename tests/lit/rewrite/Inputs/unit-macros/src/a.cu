// The kernel; the compile database gives this unit alone WITH_Z (fields.json.in) or FAST
// (restrict.json.in).
#include "particle.h"

__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) step(p, i, dt);
}
