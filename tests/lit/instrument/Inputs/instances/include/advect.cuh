// Advection shared by every kind of body: anything with x, y, vx, vy.
#pragma once
#include "bodies.h"

template <typename Body, int Steps>
__global__ void advect(Body* bodies, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int s = 0; s < Steps; ++s) {
    bodies[i].x += dt * bodies[i].vx;
    bodies[i].y += dt * bodies[i].vy;
  }
}
