// Clang accepts the variable-length array as an extension; nvcc refuses it in device code.
struct Cell {
  float mass, heat;
};

__global__ void warm(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int width = 4;
  float scratch[width];
  scratch[0] = cells[i].mass;
  if (i < n) cells[i].heat += scratch[0];
}
