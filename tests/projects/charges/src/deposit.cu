#include "particles.h"

__global__ void deposit(const Particle* __restrict__ p, int n, Grid grid, int* counts) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int cell = static_cast<int>(floorf(p[i].x / grid.width));
    cell = ((cell % grid.cells) + grid.cells) % grid.cells;
    atomicAdd(&counts[cell], p[i].charge > 0.f ? 1 : -1);
  }
}

void depositCharge(const Particle* particles, int count, Grid grid, int* counts, cudaStream_t stream) {
  CHECK_CUDA(cudaMemsetAsync(counts, 0, grid.cells * sizeof(int), stream));
  deposit<<<120, 256, 0, stream>>>(particles, count, grid, counts);
  CHECK_CUDA(cudaGetLastError());
}
