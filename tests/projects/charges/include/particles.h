// A cloud of charged particles pushed through a fixed field and binned on a grid.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float charge;
  float mass;
};

struct Grid {
  int cells;
  float width;  // of one cell, along x
};

// Host side launchers, one per kernel file.
void pushParticles(Particle* particles, int count, float dt, cudaStream_t stream);
void depositCharge(const Particle* particles, int count, Grid grid, int* counts, cudaStream_t stream);

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));       \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)
