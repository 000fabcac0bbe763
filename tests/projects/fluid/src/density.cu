#include "fluid/kernel_math.h"
#include "fluid/particle.h"

namespace fluid {

// Every particle against a window of its neighbours in index order (the particles are sorted by
// cell, so neighbours in space are near in memory).
__global__ void densityKernel(Particle* particles, int count, Parameters params, int window) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float2 pi = particles[i].position;
  float rho = 0.f;
  for (int k = -window; k <= window; ++k) {
    int j = min(max(i + k, 0), count - 1);
    float dx = particles[j].position.x - pi.x;
    float dy = particles[j].position.y - pi.y;
    rho += params.mass * poly6(dx * dx + dy * dy, params.smoothing);
  }
  particles[i].density = rho;
  particles[i].pressure = params.stiffness * (rho - params.restDensity);
}

void computeDensity(Particle* particles, int count, const Parameters& params) {
  densityKernel<<<(count + 127) / 128, 128>>>(particles, count, params, 8);
}

}  // namespace fluid
