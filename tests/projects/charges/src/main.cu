// particles [COUNT [STEPS]]: pushes COUNT particles for STEPS steps and prints the charge per cell
// and a checksum of the positions.
#include "particles.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const Grid grid{64, 1.5f};

  std::vector<Particle> host(count);
  unsigned seed = 12345u;
  auto uniform = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) * (1.0f / 16777216.0f);
  };
  for (Particle& p : host) {
    p.x = 96.f * uniform();
    p.y = 96.f * uniform();
    p.z = 0.f;
    p.vx = uniform() - 0.5f;
    p.vy = uniform() - 0.5f;
    p.vz = 0.1f * (uniform() - 0.5f);
    p.charge = uniform() < 0.5f ? -1.f : 1.f;
    p.mass = 1.f + uniform();
  }

  Particle* particles = nullptr;
  int* counts = nullptr;
  CHECK_CUDA(cudaMalloc(&particles, count * sizeof(Particle)));
  CHECK_CUDA(cudaMalloc(&counts, grid.cells * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(particles, host.data(), count * sizeof(Particle), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  for (int s = 0; s < steps; ++s) pushParticles(particles, count, 0.05f, stream);
  depositCharge(particles, count, grid, counts, stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));

  std::vector<int> binned(grid.cells);
  CHECK_CUDA(cudaMemcpy(binned.data(), counts, grid.cells * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(host.data(), particles, count * sizeof(Particle), cudaMemcpyDeviceToHost));
  double checksum = 0;
  for (const Particle& p : host) checksum += p.x + 2.0 * p.y + 3.0 * p.z;
  for (int c = 0; c < grid.cells; ++c) std::printf("%d%c", binned[c], c + 1 == grid.cells ? '\n' : ' ');
  std::printf("checksum %.6e\n", checksum);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(counts));
  CHECK_CUDA(cudaFree(particles));
  return 0;
}
