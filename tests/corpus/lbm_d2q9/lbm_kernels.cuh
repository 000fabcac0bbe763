// D2Q9 kernels: BGK collision in place, then streaming by pull with bounce-back at the walls.
#pragma once
#include "lbm.h"

__constant__ int c_ex[9];
__constant__ int c_ey[9];
__constant__ float c_w[9];
__constant__ int c_opp[9];

__device__ void relax(Cell& c, float omega) {
  float rho = 0, mx = 0, my = 0;
  for (int q = 0; q < 9; ++q) {
    rho += c.f[q];
    mx += c_ex[q] * c.f[q];
    my += c_ey[q] * c.f[q];
  }
  const float ux = mx / rho, uy = my / rho;
  for (int q = 0; q < 9; ++q) c.f[q] += omega * (equilibrium(c_w[q], c_ex[q], c_ey[q], rho, ux, uy) - c.f[q]);
  c.rho = rho;
  c.ux = ux;
  c.uy = uy;
}

__global__ void collide(Cell* cells, int nx, int ny, float omega) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  Cell& c = cells[y * nx + x];
  if (c.flags == FLUID) relax(c, omega);
}

__global__ void streamPull(const Cell* __restrict__ src, Cell* __restrict__ dst, int nx, int ny, float lidSpeed) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int i = y * nx + x;
  dst[i].flags = src[i].flags;
  dst[i].rho = src[i].rho;
  dst[i].ux = src[i].ux;
  dst[i].uy = src[i].uy;
  if (src[i].flags != FLUID) return;
  for (int q = 0; q < 9; ++q) {
    const int j = (y - c_ey[q]) * nx + (x - c_ex[q]);
    const int kind = src[j].flags;
    if (kind == FLUID) {
      dst[i].f[q] = src[j].f[q];
    } else {
      // Bounce-back; the lid adds the momentum of a wall moving along +x (density 1 at the wall).
      float f = src[i].f[c_opp[q]];
      if (kind == LID) f += 6.0f * c_w[q] * c_ex[q] * lidSpeed;
      dst[i].f[q] = f;
    }
  }
}
