// GPU stages of one time step; the x and y face fluxes go to their own arrays of Cell.
#pragma once

#include "swe.h"

// Walls: ghost cells mirror the interior with the normal momentum reversed. Corners are never read.
__global__ void reflectBoundaries(Domain d, Cell* cells) {
  int k = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (k <= d.ny) {
    Cell* west = &cells[d.index(0, k)];
    Cell* east = &cells[d.index(d.nx + 1, k)];
    *west = cells[d.index(1, k)];
    *east = cells[d.index(d.nx, k)];
    west->hu = -west->hu;
    east->hu = -east->hu;
  }
  if (k <= d.nx) {
    cells[d.index(k, 0)] = cells[d.index(k, 1)];
    cells[d.index(k, 0)].hv = -cells[d.index(k, 1)].hv;
    cells[d.index(k, d.ny + 1)] = cells[d.index(k, d.ny)];
    cells[d.index(k, d.ny + 1)].hv = -cells[d.index(k, d.ny)].hv;
  }
}

// fx[index(i, j)]: the face between cells (i, j) and (i + 1, j), for i in 0 .. nx.
__global__ void faceFluxesX(Domain d, const Cell* cells, Cell* fx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > d.nx || j > d.ny) return;
  fx[d.index(i, j)] = rusanovFlux<0>(cells[d.index(i, j)], cells[d.index(i + 1, j)]);
}

__global__ void faceFluxesY(Domain d, const Cell* cells, Cell* fy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > d.nx || j > d.ny) return;
  fy[d.index(i, j)] = rusanovFlux<1>(cells[d.index(i, j)], cells[d.index(i, j + 1)]);
}

__global__ void updateCells(Domain d, const Cell* cells, const Cell* fx, const Cell* fy, float dt, Cell* next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > d.nx || j > d.ny) return;
  int c = d.index(i, j);
  float rx = dt / d.dx, ry = dt / d.dy;
  const Cell& e = fx[c];
  const Cell& w = fx[d.index(i - 1, j)];
  const Cell& n = fy[c];
  const Cell& s = fy[d.index(i, j - 1)];
  next[c].h = cells[c].h - rx * (e.h - w.h) - ry * (n.h - s.h);
  next[c].hu = cells[c].hu - rx * (e.hu - w.hu) - ry * (n.hu - s.hu);
  next[c].hv = cells[c].hv - rx * (e.hv - w.hv) - ry * (n.hv - s.hv);
}

__global__ void recordGauges(Domain d, const Cell* cells, Gauge* gauges, int count, float time) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= count) return;
  float h = cells[d.index(gauges[g].i, gauges[g].j)].h;
  gauges[g].maxH = fmaxf(gauges[g].maxH, h);
  if (gauges[g].arrival < 0.0f && h > kAlarmDepth) gauges[g].arrival = time;
}

// Water volume per block of the interior, in double, summed by the host in block order.
__global__ void blockVolume(Domain d, const Cell* cells, double* perBlock) {
  __shared__ double partial[256];
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  partial[t] = (i <= d.nx && j <= d.ny) ? (double)cells[d.index(i, j)].h : 0.0;
  __syncthreads();
  for (int stride = blockDim.x * blockDim.y / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) perBlock[blockIdx.y * gridDim.x + blockIdx.x] = partial[0];
}
