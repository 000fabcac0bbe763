// Double buffering: each step reads one array of cells and writes the other, then the two swap.
#include <utility>

struct Cell {
  float h, hu;
};

__global__ void step(const Cell* in, Cell* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i].h = in[i].h - 0.1f * in[(i + 1) % n].hu;
  out[i].hu = in[i].hu;
}

int main() {
  const int n = 256;
  Cell* cells = nullptr;
  Cell* next = nullptr;
  cudaMalloc(&cells, n * sizeof(Cell));
  cudaMalloc(&next, n * sizeof(Cell));
  cudaMemset(cells, 0, n * sizeof(Cell));
  for (int s = 0; s < 10; ++s) {
    step<<<1, n>>>(cells, next, n);
    std::swap(cells, next);
  }
  cudaFree(cells);
  cudaFree(next);
  return 0;
}
