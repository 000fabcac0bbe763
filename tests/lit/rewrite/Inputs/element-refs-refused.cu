// Uses of an element reference that have no counterpart in a new layout.
#include <cuda_runtime.h>

struct Cell {
  float rho;
  float u;
  __device__ void relax(float omega) { rho += omega * (u - rho); }
};

__device__ float* keep(Cell& c) { return &c.rho; }

__global__ void relaxAll(Cell* cells, int n, float omega) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cells[i++].relax(omega);
}

__global__ void pointers(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Cell& c = cells[i];
  auto copy = c;
  c.u = copy.rho + *keep(cells[i]);
}

int main() {
  Cell* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(Cell));
  relaxAll<<<1, 64>>>(d, 64, 0.5f);
  pointers<<<1, 64>>>(d, 64);
  cudaFree(d);
  return 0;
}
