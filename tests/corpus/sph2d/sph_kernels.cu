// Device side of the solver: the constant parameters, the grid, and the time loop.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sph.h"
#include "sph_kernels.cuh"

#define CUDA_CHECK(call)                                                                       \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

void uploadParams(const SimParams& params) { CUDA_CHECK(cudaMemcpyToSymbol(c_params, &params, sizeof(params))); }

void allocGrid(DeviceGrid& g, int n, int cells) {
  CUDA_CHECK(cudaMalloc(&g.cellOf, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g.sorted, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g.cellCount, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g.cellStart, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&g.cellFill, cells * sizeof(int)));
}

void freeGrid(DeviceGrid& g) {
  cudaFree(g.cellOf);
  cudaFree(g.sorted);
  cudaFree(g.cellCount);
  cudaFree(g.cellStart);
  cudaFree(g.cellFill);
}

void runSteps(Particle<real_t>* d_particles, int n, const SimParams& params, DeviceGrid& g, int steps) {
  const int cells = params.gridDim * params.gridDim;
  const int block = 128, grid = (n + block - 1) / block;
  std::vector<int> count(cells), start(cells);
  for (int s = 0; s < steps; ++s) {
    CUDA_CHECK(cudaMemset(g.cellCount, 0, cells * sizeof(int)));
    CUDA_CHECK(cudaMemset(g.cellFill, 0, cells * sizeof(int)));
    hashParticles<real_t><<<grid, block>>>(d_particles, n, g.cellOf, g.cellCount);
    CUDA_CHECK(cudaMemcpy(count.data(), g.cellCount, cells * sizeof(int), cudaMemcpyDeviceToHost));
    int sum = 0;
    for (int c = 0; c < cells; ++c) {
      start[c] = sum;
      sum += count[c];
    }
    CUDA_CHECK(cudaMemcpy(g.cellStart, start.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
    scatterParticles<<<grid, block>>>(g.cellOf, n, g.cellStart, g.cellFill, g.sorted);
    computeDensity<real_t><<<grid, block>>>(d_particles, n, g.cellStart, g.cellCount, g.sorted);
    computeForces<real_t><<<grid, block>>>(d_particles, n, g.cellStart, g.cellCount, g.sorted);
    integrate<real_t><<<grid, block>>>(d_particles, n);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}
