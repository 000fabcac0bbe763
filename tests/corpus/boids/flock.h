#pragma once
#include "boid.h"

// The neighbour grid: boids sorted by cell, rebuilt every step.
struct CellGrid {
  int cells;
  int* cellOf;
  int* cellStart;
  int* cellEnd;
  int* order;
};

void createGrid(CellGrid& grid, int n, const FlockRules& rules);
void destroyGrid(CellGrid& grid);
// Runs `steps` steps, ping-ponging between the two arrays; returns the one that holds the result.
Boid* simulate(Boid* d_current, Boid* d_next, int n, const FlockRules& rules, CellGrid& grid, int steps,
               cudaStream_t stream);
