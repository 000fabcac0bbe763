// Kernels and helpers whose arrays relayout must not declare restrict: some other value can reach
// them, or the body uses the whole struct past the locals. `accumulate` is the control that gets
// restrict locals.
#include <cuda_runtime.h>

struct Cell {
  float mass;
  float x, y, z;
};

struct Grid {
  Cell* cells;
  int count;
};

__global__ void accumulate(Cell* cells, const float* weights, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < k; ++j) cells[i].mass += weights[j];
}

// Two views of one array: the host passes (cells, cells + 1).
__global__ void pairs(Cell* out, const Cell* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i].x += in[i].x;
}

// A lambda that captures the parameter reads its arrays past any local.
__global__ void viaLambda(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto grow = [=](float by) { cells[i].mass *= by; };
  if (i < n) {
    cells[i].x += 1.0f;
    grow(2.0f);
  }
}

// A whole element stored (relayoutStore) writes every array past the locals.
__global__ void reset(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[i] = Cell{1.0f, 0.0f, 0.0f, 0.0f};
  for (int j = 0; j < 4; ++j) cells[i].x += j;
}

// A whole element copied (relayoutLoad) where its arrays are written.
__global__ void shift(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Cell before = cells[i];
  cells[i].y = before.x + before.y;
}

// The struct passed on: the callee writes the arrays. The callee itself gets locals for the arrays it
// writes only: one it only reads could go through the read-only cache in a kernel that writes it.
__device__ void push(Cell* cells, int i, float by) { cells[i].z += by * cells[i].mass; }
__global__ void pushAll(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[i].z = 0.0f;
  push(cells, i, 1.0f);
}

// Another object that holds an array of the struct.
__global__ void fromGrid(Cell* cells, Grid grid) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < grid.count) cells[i].y += grid.cells[i].y;
}

// Threads that wait for each other: nvcc would keep restrict values across the barrier.
__global__ void smooth(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[i].x = 0.5f * cells[i].x;
  __syncthreads();
  cells[i].y = cells[(i + 1) % n].x;
}

int main() {
  const int n = 256;
  Cell* cells;
  float* weights;
  cudaMalloc(&cells, (n + 1) * sizeof(Cell));
  cudaMalloc(&weights, 8 * sizeof(float));
  accumulate<<<1, n>>>(cells, weights, n, 8);
  pairs<<<1, n>>>(cells, cells + 1, n);
  viaLambda<<<1, n>>>(cells, n);
  reset<<<1, n>>>(cells, n);
  shift<<<1, n>>>(cells, n);
  pushAll<<<1, n>>>(cells, n);
  fromGrid<<<1, n>>>(cells, Grid{cells, n});
  smooth<<<1, n>>>(cells, n);
  cudaFree(cells);
  cudaFree(weights);
  return 0;
}
