#include "transfer.h"

#include <cstdio>
#include <vector>

__global__ void relax(Particle* particles, Cell* cells, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    particles[i].x += cells[i].density;
    cells[i].pressure = 2.0f * particles[i].mass;
  }
}

int main() {
  const int n = 1024;
  std::vector<Particle> particles(n, Particle{1, 2, 3, 4});
  std::vector<Cell> cells(n, Cell{1, 1});
  Particle* d_particles;
  Cell* d_cells;
  cudaMalloc(&d_particles, n * sizeof(Particle));
  cudaMalloc(&d_cells, n * sizeof(Cell));
  copyState(d_particles, particles.data(), d_cells, cells.data(), n);
  relax<<<(n + 255) / 256, 256>>>(d_particles, d_cells, n);
  copyState(particles.data(), d_particles, cells.data(), d_cells, n);
  std::printf("%f %f\n", particles[0].x, cells[0].pressure);
  return 0;
}
