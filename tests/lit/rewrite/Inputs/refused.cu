// Two structs in one file: Cell has uses that cannot be rewritten, Node is still transformed.
struct Cell { float rho, u, v; };
struct Node { float x, y; int flag; };

__device__ Cell* at(Cell* cells, int i) { return &cells[i]; }

__global__ void relax(Cell* c, Node* nodes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Cell* mine = at(c, i);
    mine->rho = 0.5f * (c + 1)[i].u;
    if (nodes[i].flag) nodes[i].x += nodes[i].y;
  }
}

int main() {
  const int n = 1024;
  Cell* d_c;
  Node* d_n;
  cudaMalloc(&d_c, (n + 1) * sizeof(Cell));
  cudaMalloc(&d_n, n * sizeof(Node));
  relax<<<n / 256, 256>>>(d_c, d_n, n);
  cudaFree(d_c);
  cudaFree(d_n);
  return 0;
}
