// particles: simulates N charged particles for a few steps on the GPU, repeats the simulation on
// the CPU with the same physics, and prints a checksum of the GPU result.
//   particles [--n N] [--steps S]      exit code 0: GPU and CPU agree; 1: they do not; 2: bad usage or CUDA error
#include "particles/kernels.cuh"
#include "particles/particle.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using particles::Particle;
using particles::SimParams;

#define CUDA_CHECK(call)                                                                         \
  do {                                                                                           \
    cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

namespace {

struct Options {
  int n = 4096;
  int steps = 10;
};

bool parseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && std::strcmp(argv[i], "--n") == 0) {
      options.n = std::atoi(argv[++i]);
    } else if (i + 1 < argc && std::strcmp(argv[i], "--steps") == 0) {
      options.steps = std::atoi(argv[++i]);
    } else {
      return false;
    }
  }
  return options.n > 1 && options.steps >= 0;
}

// The same step as the kernels, one particle after another.
void stepOnCpu(std::vector<Particle>& particles, const SimParams& params) {
  const int n = static_cast<int>(particles.size());
  const float rc2 = params.cutoff * params.cutoff;
  std::vector<float3> forces(n);
  for (int i = 0; i < n; ++i) {
    float3 total = make_float3(0.f, 0.f, 0.f);
    int count = 0;
    for (int j = 0; j < n && count < particles::kMaxNeighbours; ++j) {
      if (j == i || particles::distance2(particles[i], particles[j]) >= rc2) continue;
      ++count;
      float3 f = particles::pairForce(particles[i].position, particles[i].charge, particles[j].position,
                                      particles[j].charge, params);
      total.x += f.x;
      total.y += f.y;
      total.z += f.z;
    }
    forces[i] = total;
  }
  for (int i = 0; i < n; ++i) particles::advance(particles[i], forces[i], params);
}

// Positions and energy summed in double: a number that changes when any particle moves differently.
double checksum(const std::vector<Particle>& particles) {
  double sum = 0.0;
  for (const Particle& p : particles)
    sum += p.position.x + 2.0 * p.position.y + 3.0 * p.position.z + particles::kineticEnergy(p) + 1e-6 * p.id;
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parseOptions(argc, argv, options)) {
    std::fprintf(stderr, "usage: %s [--n N] [--steps S]   (N > 1, S >= 0)\n", argv[0]);
    return 2;
  }
  const int n = options.n;
  SimParams params;
  params.box = static_cast<float>(particles::latticeSide(n));
  params.cutoff = 1.5f;
  params.dt = 1e-3f;
  params.softening = 0.05f;

  Particle* dParticles = nullptr;
  int* dNeighbours = nullptr;
  int* dCounts = nullptr;
  float3* dForces = nullptr;
  CUDA_CHECK(cudaMalloc(&dParticles, sizeof(Particle) * n));
  CUDA_CHECK(cudaMalloc(&dNeighbours, sizeof(int) * n * particles::kMaxNeighbours));
  CUDA_CHECK(cudaMalloc(&dCounts, sizeof(int) * n));
  CUDA_CHECK(cudaMalloc(&dForces, sizeof(float3) * n));

  CUDA_CHECK(particles::initializeParticles(dParticles, n, 2017u, params));
  std::vector<Particle> reference(n);
  CUDA_CHECK(cudaMemcpy(reference.data(), dParticles, sizeof(Particle) * n, cudaMemcpyDeviceToHost));

  const int threads = 128;
  const int blocks = (n + threads - 1) / threads;
  for (int step = 0; step < options.steps; ++step) {
    particles::buildNeighbours<<<blocks, threads>>>(dParticles, n, params, dNeighbours, dCounts);
    particles::computeForces<<<blocks, threads>>>(dParticles, n, dNeighbours, dCounts, params, dForces);
    particles::integrate<<<blocks, threads>>>(dParticles, dForces, n, params);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<Particle> result(n);
  CUDA_CHECK(cudaMemcpy(result.data(), dParticles, sizeof(Particle) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dParticles));
  CUDA_CHECK(cudaFree(dNeighbours));
  CUDA_CHECK(cudaFree(dCounts));
  CUDA_CHECK(cudaFree(dForces));

  for (int step = 0; step < options.steps; ++step) stepOnCpu(reference, params);
  // The GPU may contract multiply-adds the CPU does separately: compare with a tolerance.
  const float tolerance = 1e-3f;
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    const float3 gpu = result[i].position, cpu = reference[i].position;
    bool same = std::fabs(gpu.x - cpu.x) <= tolerance && std::fabs(gpu.y - cpu.y) <= tolerance &&
                std::fabs(gpu.z - cpu.z) <= tolerance && result[i].id == reference[i].id;
    if (!same && mismatches++ < 5)
      std::fprintf(stderr, "particle %d: GPU (%g, %g, %g), CPU (%g, %g, %g)\n", i, gpu.x, gpu.y, gpu.z, cpu.x,
                   cpu.y, cpu.z);
  }
  std::printf("particles: n=%d steps=%d checksum=%.6e\n", n, options.steps, checksum(result));
  if (mismatches != 0) {
    std::fprintf(stderr, "particles: %d of %d particles differ from the CPU reference\n", mismatches, n);
    return 1;
  }
  std::printf("particles: matches the CPU reference\n");
  return 0;
}
