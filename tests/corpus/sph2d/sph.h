// Host interface of the GPU solver.
#pragma once
#include "particle.h"

struct DeviceGrid {
  int* cellOf;     // cell of each particle
  int* cellCount;  // particles per cell
  int* cellStart;  // exclusive prefix sum of cellCount
  int* cellFill;   // scatter cursor per cell
  int* sorted;     // particle indices grouped by cell
};

void uploadParams(const SimParams& params);
void allocGrid(DeviceGrid& g, int n, int cells);
void freeGrid(DeviceGrid& g);
// Runs `steps` steps on the device particles; the grid prefix sum is done on the host.
void runSteps(Particle<real_t>* d_particles, int n, const SimParams& params, DeviceGrid& g, int steps);
