// fails.cu as it was before its last edit.
struct Cell {
  float mass, heat;
};

__global__ void warm(Cell* cells, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cells[i].heat += cells[i].mass;
}
