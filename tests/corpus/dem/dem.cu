// The time loop on the GPU.
#include <cstdio>
#include <cstdlib>

#include "dem_kernels.cuh"

#define CUDA_CHECK(expr)                                                                          \
  do {                                                                                            \
    cudaError_t e = (expr);                                                                       \
    if (e != cudaSuccess) {                                                                       \
      fprintf(stderr, "dem: %s: %s (%s:%d)\n", #expr, cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

void runDem(Grain* grains, int n, const DemParams& params, int steps, int* overflow) {
  const int cells = params.cells.x * params.cells.y * params.cells.z;
  Grain* d_grains;
  float3 *d_force, *d_torque;
  int *d_cellCount, *d_cellGrains, *d_overflow;
  CUDA_CHECK(cudaMalloc(&d_grains, n * sizeof(Grain)));
  CUDA_CHECK(cudaMalloc(&d_force, n * sizeof(float3)));
  CUDA_CHECK(cudaMalloc(&d_torque, n * sizeof(float3)));
  CUDA_CHECK(cudaMalloc(&d_cellCount, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_cellGrains, size_t(cells) * DEM_CELL_CAPACITY * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_overflow, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_grains, grains, n * sizeof(Grain), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_overflow, 0, sizeof(int)));

  const int block = 128, grid = (n + block - 1) / block;
  for (int s = 0; s < steps; ++s) {
    CUDA_CHECK(cudaMemset(d_cellCount, 0, cells * sizeof(int)));
    binGrains<<<grid, block>>>(d_grains, n, params, d_cellCount, d_cellGrains, d_overflow);
    sortCells<<<(cells + block - 1) / block, block>>>(d_cellCount, d_cellGrains, cells);
    contactForces<<<grid, block>>>(d_grains, n, params, d_cellCount, d_cellGrains, d_force, d_torque);
    integrate<<<grid, block>>>(d_grains, n, params, d_force, d_torque);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(grains, d_grains, n * sizeof(Grain), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(overflow, d_overflow, sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree(d_grains);
  cudaFree(d_force);
  cudaFree(d_torque);
  cudaFree(d_cellCount);
  cudaFree(d_cellGrains);
  cudaFree(d_overflow);
}
