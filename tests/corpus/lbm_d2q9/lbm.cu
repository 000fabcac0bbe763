// Host side: the two lattices live in one raw device buffer.
#include <cstdio>
#include <cstdlib>

#include "lbm_kernels.cuh"

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "lbm: %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

void initCavity(Cell* cells, const LbmParams& p) {
  for (int y = 0; y < p.ny; ++y)
    for (int x = 0; x < p.nx; ++x) {
      Cell& c = cells[y * p.nx + x];
      c.flags = (x == 0 || x == p.nx - 1 || y == 0) ? WALL : (y == p.ny - 1 ? LID : FLUID);
      c.rho = 1.0f;
      c.ux = c.uy = 0.0f;
      for (int q = 0; q < 9; ++q) c.f[q] = kWeight[q];
    }
}

void runLbm(Cell* cells, const LbmParams& p, int steps) {
  check(cudaMemcpyToSymbol(c_ex, kEx, sizeof(kEx)), "c_ex");
  check(cudaMemcpyToSymbol(c_ey, kEy, sizeof(kEy)), "c_ey");
  check(cudaMemcpyToSymbol(c_w, kWeight, sizeof(kWeight)), "c_w");
  check(cudaMemcpyToSymbol(c_opp, kOpposite, sizeof(kOpposite)), "c_opp");

  const size_t bytes = size_t(p.nx) * p.ny * sizeof(Cell);
  char* lattice;
  check(cudaMalloc((void**)&lattice, 2 * bytes), "cudaMalloc");
  check(cudaMemcpy(lattice, cells, bytes, cudaMemcpyHostToDevice), "upload");

  const dim3 block(32, 8), grid((p.nx + block.x - 1) / block.x, (p.ny + block.y - 1) / block.y);
  char* current = lattice;
  char* next = lattice + bytes;
  for (int s = 0; s < steps; ++s) {
    collide<<<grid, block>>>((Cell*)current, p.nx, p.ny, p.omega);
    streamPull<<<grid, block>>>((const Cell*)current, (Cell*)next, p.nx, p.ny, p.lidSpeed);
    char* t = current;
    current = next;
    next = t;
  }
  check(cudaGetLastError(), "kernels");
  check(cudaMemcpy(cells, current, bytes, cudaMemcpyDeviceToHost), "download");
  cudaFree(lattice);
}
