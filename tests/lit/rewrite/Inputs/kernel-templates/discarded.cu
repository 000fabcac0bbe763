// A kernel template whose `if constexpr` branch no instance compiles: the branch is still checked
// where the template is defined, so its use of the struct would have to change too.
struct Cell {
  float h, hu;
};

template <bool Flux>
__global__ void update(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (Flux) {
    cells[i].hu += 1.0f;
  } else {
    cells[i].h *= 0.5f;
  }
}

int main() {
  Cell* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(Cell));
  update<false><<<1, 64>>>(d, 64);
  cudaFree(d);
  return 0;
}
