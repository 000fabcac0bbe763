// Smoothed-particle hydrodynamics in two dimensions: the particle, and the kernels' launchers.
#pragma once

#include <cuda_runtime.h>

namespace fluid {

struct Particle {
  float2 position;
  float2 velocity;
  float density;
  float pressure;
  int cell;  // of the neighbour grid
  int id;
};

struct Parameters {
  float smoothing;  // h
  float mass;
  float stiffness;
  float restDensity;
  float dt;
};

void computeDensity(Particle* particles, int count, const Parameters& params);
void integrate(Particle* particles, int count, const Parameters& params);

}  // namespace fluid
