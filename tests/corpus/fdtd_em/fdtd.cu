// GPU time stepping: the H half step, the source, the E half step and the probes.
#include <cstdio>
#include <math.h>

#include "fdtd.h"

__constant__ Source c_source;

__global__ void updateH(YeeCell* grid, int nx, int ny, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx - 1 || j >= ny - 1) return;
  int c = IDX(i, j, nx);
  float curlE = (grid[IDX(i + 1, j, nx)].Ey - grid[c].Ey) - (grid[IDX(i, j + 1, nx)].Ex - grid[c].Ex);
  grid[c].Hz -= dt / grid[c].mu * curlE;
}

__global__ void injectSource(YeeCell* grid, int nx, float t) {
  if (threadIdx.x == 0 && blockIdx.x == 0) grid[IDX(c_source.i, c_source.j, nx)].Hz += sourceValue(c_source, t);
}

__global__ void updateE(YeeCell* grid, int nx, int ny, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  int c = IDX(i, j, nx);
  float k = dt / grid[c].eps;
  // Perfect conductor walls: the tangential E on the outer edges stays zero.
  if (j > 0 && j < ny - 1 && i < nx - 1) grid[c].Ex += k * (grid[c].Hz - grid[IDX(i, j - 1, nx)].Hz);
  if (i > 0 && i < nx - 1 && j < ny - 1) grid[c].Ey -= k * (grid[c].Hz - grid[IDX(i - 1, j, nx)].Hz);
}

__global__ void recordProbes(const YeeCell* grid, int nx, const int2* probes, int count, float* series, int step) {
  int p = threadIdx.x;
  if (p < count) series[step * count + p] = grid[IDX(probes[p].x, probes[p].y, nx)].Hz;
}

// Electromagnetic energy per block, (eps E^2 + mu H^2) / 2, in double.
__global__ void fieldEnergy(const YeeCell* grid, int cells, double* perBlock) {
  __shared__ double partial[256];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  double e = 0.0;
  if (c < cells) {
    const YeeCell cell = grid[c];
    e = 0.5 * (cell.eps * ((double)cell.Ex * cell.Ex + (double)cell.Ey * cell.Ey) + cell.mu * (double)cell.Hz * cell.Hz);
  }
  partial[threadIdx.x] = e;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) perBlock[blockIdx.x] = partial[0];
}

int runFdtdGpu(YeeCell* hostGrid, int nx, int ny, float dt, int steps, const Source& src, const int* probeI,
               const int* probeJ, int probes, float* series, double* energy) {
  const int cells = nx * ny;
  YeeCell* grid;
  int2* dProbes;
  float* dSeries;
  double* dEnergy;
  const int energyBlocks = (cells + 255) / 256;
  if (cudaMalloc(&grid, cells * sizeof(YeeCell)) != cudaSuccess) return -1;
  cudaMalloc(&dProbes, probes * sizeof(int2));
  cudaMalloc(&dSeries, (size_t)steps * probes * sizeof(float));
  cudaMalloc(&dEnergy, energyBlocks * sizeof(double));
  int2 hostProbes[MAX_PROBES];
  for (int p = 0; p < probes; ++p) hostProbes[p] = make_int2(probeI[p], probeJ[p]);
  cudaMemcpy(grid, hostGrid, cells * sizeof(YeeCell), cudaMemcpyHostToDevice);
  cudaMemcpy(dProbes, hostProbes, probes * sizeof(int2), cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(c_source, &src, sizeof(Source));

  dim3 block(32, 8), tiles((nx + 31) / 32, (ny + 7) / 8);
  for (int n = 0; n < steps; ++n) {
    updateH<<<tiles, block>>>(grid, nx, ny, dt);
    injectSource<<<1, 32>>>(grid, nx, (n + 0.5f) * dt);
    updateE<<<tiles, block>>>(grid, nx, ny, dt);
    recordProbes<<<1, 32>>>(grid, nx, dProbes, probes, dSeries, n);
  }
  fieldEnergy<<<energyBlocks, 256>>>(grid, cells, dEnergy);
  cudaMemcpy(hostGrid, grid, cells * sizeof(YeeCell), cudaMemcpyDeviceToHost);
  cudaMemcpy(series, dSeries, (size_t)steps * probes * sizeof(float), cudaMemcpyDeviceToHost);
  double* blocks = new double[energyBlocks];
  cudaMemcpy(blocks, dEnergy, energyBlocks * sizeof(double), cudaMemcpyDeviceToHost);
  *energy = 0.0;
  for (int b = 0; b < energyBlocks; ++b) *energy += blocks[b];
  delete[] blocks;
  cudaError_t err = cudaGetLastError();
  cudaFree(dEnergy);
  cudaFree(dSeries);
  cudaFree(dProbes);
  cudaFree(grid);
  if (err != cudaSuccess) {
    fprintf(stderr, "fdtd_em: %s\n", cudaGetErrorString(err));
    return -1;
  }
  return 0;
}
