// fluid [COUNT [STEPS]]: a column of fluid particles settling; prints the mean density and height.
#include "fluid/particle.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "fluid: %s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 1 << 19;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const fluid::Parameters params{0.04f, 0.02f, 3.f, 1000.f, 1e-3f};

  std::vector<fluid::Particle> particles(count);
  const int columns = 512;
  for (int i = 0; i < count; ++i) {
    fluid::Particle& p = particles[i];
    p.position = make_float2(0.02f * (i % columns), 0.02f * (i / columns));
    p.velocity = make_float2(0.f, 0.f);
    p.density = params.restDensity;
    p.pressure = 0.f;
    p.cell = i / 64;
    p.id = i;
  }

  fluid::Particle* device = nullptr;
  check(cudaMalloc(&device, count * sizeof(fluid::Particle)), "cudaMalloc");
  check(cudaMemcpy(device, particles.data(), count * sizeof(fluid::Particle), cudaMemcpyHostToDevice), "upload");
  for (int s = 0; s < steps; ++s) {
    fluid::computeDensity(device, count, params);
    fluid::integrate(device, count, params);
  }
  check(cudaGetLastError(), "kernels");
  check(cudaMemcpy(particles.data(), device, count * sizeof(fluid::Particle), cudaMemcpyDeviceToHost), "download");
  check(cudaFree(device), "cudaFree");

  double density = 0, height = 0;
  for (const fluid::Particle& p : particles) {
    density += p.density;
    height += p.position.y;
  }
  std::printf("mean density %.6f\nmean height %.6f\n", density / count, height / count);
  return 0;
}
