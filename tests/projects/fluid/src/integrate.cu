#include "fluid/particle.h"

namespace fluid {

__global__ void integrateKernel(Particle* particles, int count, Parameters params) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Particle& p = particles[i];
  const float push = -p.pressure / fmaxf(p.density, 1e-6f);
  p.velocity.x += params.dt * push * 1e-3f;
  p.velocity.y += params.dt * (push * 1e-3f - 9.81f);
  p.position.x += params.dt * p.velocity.x;
  p.position.y += params.dt * p.velocity.y;
  if (p.position.y < 0.f) {
    p.position.y = -p.position.y;
    p.velocity.y = -0.5f * p.velocity.y;
  }
}

void integrate(Particle* particles, int count, const Parameters& params) {
  integrateKernel<<<(count + 255) / 256, 256>>>(particles, count, params);
}

}  // namespace fluid
