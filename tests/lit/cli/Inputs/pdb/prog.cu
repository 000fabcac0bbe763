// Needs the flags of its build: -DSCALE and -I include (see compile_commands.json.in).
#include "scale.h"
#ifndef SCALE
#error "SCALE must come from the build's flags"
#endif
struct Cell { float u, v; };
__global__ void scale(Cell* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i].u = c[i].v * SCALE * kFactor;
}
