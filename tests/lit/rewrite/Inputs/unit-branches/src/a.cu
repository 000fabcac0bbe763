// The kernel, built with HALF_STEP (compile_commands.json).
#include "particle.h"

__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) step(p, i, dt);
}
