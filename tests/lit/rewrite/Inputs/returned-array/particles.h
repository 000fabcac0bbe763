// Leapfrog particles in a harmonic well, double-buffered on the device.
#pragma once

#include <vector>

struct Particle {
  float x, y;
  float vx, vy;
  float mass;
};

// Runs `steps` steps between the two buffers and returns the one holding the last step; null when
// there is nothing to do.
Particle* integrate(Particle* current, Particle* next, int n, int steps, float dt);

// The particle nearest the origin, on the device.
const Particle* nearestOrigin(const Particle* particles, int n);
