#pragma once
#include "body.h"

struct SimConfig {
  float dt;
  float softening;
  float G;
};

// Two disc galaxies on a collision course, placed in the given array (managed memory).
void makeGalaxies(Body* bodies, int n, unsigned int seed);
// Accelerations of the current positions (fills acc).
void computeForces(Body* bodies, int n, const SimConfig& cfg);
// Leapfrog (kick-drift-kick) steps; acc must hold the accelerations of the current positions.
void advance(Body* bodies, int n, const SimConfig& cfg, int steps);
// Kinetic and potential energy, summed in double on the host.
void energies(const Body* bodies, int n, const SimConfig& cfg, double* kinetic, double* potential);
