// Energy terms of a particle set: each thread copies its particle and works on the copy.
#include "particles.cuh"

__global__ void energies(const Particle* particles, const float* cellWeight, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Particle mine = particles[i];
  Vec3 drift = mine.vel;
  float e = kinetic(mine);                   // local copy: the plain copy
  e += dot(drift, mine.pos);                 // locals and a local's member: the plain copy
  e += kinetic(particles[(i + 1) % n]);      // an element of the global array: hooked
  e += weighted(mine, cellWeight);           // reaches a global table: hooked
  e += damped(mine, 8);                      // holds a loop: hooked
  e += scaled(mine.pos, 2.0f);               // a template's instantiation on a local: the plain copy
  out[i] = e;
}
