// Ghost cells and per-cell updates through element pointers: `*west = interior`, `f(*g)`,
// `Cell& c = *p`, `Cell v = *p`.
#include <cstdio>
#include <cuda_runtime.h>

struct Cell {
  float h, hu, hv;
};

__host__ __device__ inline float speed(const Cell& c) { return c.h > 0.f ? (c.hu * c.hu + c.hv * c.hv) / c.h : 0.f; }
__host__ __device__ inline float depth(Cell c) { return c.h; }
__device__ void damp(Cell& c, float f) {
  c.hu *= f;
  c.hv *= f;
}

__global__ void reflect(Cell* cells, int nx, int ny) {
  int k = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (k > ny) return;
  Cell* west = &cells[k * (nx + 2)];
  Cell* east = &cells[k * (nx + 2) + nx + 1];
  *west = cells[k * (nx + 2) + 1];
  *east = cells[k * (nx + 2) + nx];
  west->hu = -west->hu;
  east->hu = -east->hu;
}

__global__ void measure(const Cell* cells, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Cell* c = cells + i;
  Cell copy = *c;
  out[i] = speed(*c) + depth(*c) + copy.h;
}

__global__ void relax(Cell* cells, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Cell* p = &cells[i];
  Cell& c = *p;
  damp(c, f);
  damp(*p, f);
}

int main() {
  const int nx = 62, ny = 30, n = (nx + 2) * (ny + 2);
  Cell* h = new Cell[n];
  for (int i = 0; i < n; ++i) h[i] = Cell{1.f + 0.01f * (i % 7), 0.1f * (i % 5), -0.05f * (i % 3)};
  Cell* d;
  float* out;
  cudaMalloc(&d, n * sizeof(Cell));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(Cell), cudaMemcpyHostToDevice);
  reflect<<<1, 64>>>(d, nx, ny);
  relax<<<(n + 127) / 128, 128>>>(d, n, 0.9f);
  measure<<<(n + 127) / 128, 128>>>(d, n, out);
  float* r = new float[n];
  cudaMemcpy(r, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(h, d, n * sizeof(Cell), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r[i] + h[i].hu;
  std::printf("checksum %.6f\n", sum);
  cudaFree(d);
  cudaFree(out);
  delete[] h;
  delete[] r;
  return 0;
}
