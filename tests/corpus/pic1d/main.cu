// 1D electrostatic particle-in-cell: a two-stream plasma, checked against a CPU run.
// usage: pic1d [particles] [steps] [cells]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pic_kernels.cuh"
#include "reference.h"

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

#ifndef PIC_PUSH_DOUBLE
using PushReal = float;
#else
using PushReal = double;
#endif

constexpr int kMaxSteps = 1000;
constexpr int kBlock = 256;
constexpr int kEnergyBlocks = 256;
constexpr float kPi = 3.14159265358979f;

static unsigned int lcg(unsigned int& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

// Two counter-streaming electron beams on a uniform ion background, with a small density ripple.
static void initParticles(Particle* particles, int n, const SimParams& params) {
  unsigned int seed = 12345u;
  const float v0 = 1.0f;
  for (int i = 0; i < n; ++i) {
    float x0 = (i + 0.5f) * params.length / n;
    float x = wrapPosition(x0 + 0.01f * std::cos(2.0f * kPi * x0 / params.length), params.length);
    float jitter = 0.02f * (static_cast<float>(lcg(seed) & 0xffff) / 65536.0f - 0.5f);
    particles[i].x = x;
    particles[i].v = (i % 2 == 0 ? v0 : -v0) + jitter;
    particles[i].q = -params.length / n;
    particles[i].m = params.length / n;
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 21);
  const int steps = std::min(argc > 2 ? std::atoi(argv[2]) : 20, kMaxSteps);
  const int ncells = std::min(argc > 3 ? std::atoi(argv[3]) : 1024, kMaxCells);
  if (n <= 0 || steps <= 0 || ncells < 4) {
    std::fprintf(stderr, "usage: %s [particles > 0] [steps > 0] [cells >= 4]\n", argv[0]);
    return 2;
  }

  SimParams params;
  params.ncells = ncells;
  params.length = 4.0f * kPi;
  params.dx = params.length / ncells;
  params.dt = 0.1f;
  params.rhoBack = 1.0;

  Particle* hostParticles = nullptr;
  CUDA_CHECK(cudaMallocHost(&hostParticles, sizeof(Particle) * n));
  initParticles(hostParticles, n, params);
  std::vector<Particle> reference(hostParticles, hostParticles + n);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  Particle* particles = nullptr;
  unsigned long long* rhoFixed = nullptr;
  double* rho = nullptr;
  float* efield = nullptr;
  double2* partial = nullptr;
  CUDA_CHECK(cudaMalloc(&particles, sizeof(Particle) * n));
  CUDA_CHECK(cudaMalloc(&rhoFixed, sizeof(unsigned long long) * ncells));
  CUDA_CHECK(cudaMalloc(&rho, sizeof(double) * ncells));
  CUDA_CHECK(cudaMalloc(&efield, sizeof(float) * ncells));
  CUDA_CHECK(cudaMalloc(&partial, sizeof(double2) * kEnergyBlocks));
  CUDA_CHECK(cudaMemcpyToSymbol(c_params, &params, sizeof(SimParams)));
  CUDA_CHECK(cudaMemcpyAsync(particles, hostParticles, sizeof(Particle) * n, cudaMemcpyHostToDevice, stream));

  const int blocks = std::min((n + kBlock - 1) / kBlock, 4096);
  double fieldEnergy[kMaxSteps];
  std::vector<float> hostField(ncells);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, stream));
  for (int step = 0; step < steps; ++step) {
    CUDA_CHECK(cudaMemsetAsync(rhoFixed, 0, sizeof(unsigned long long) * ncells, stream));
    depositCharge<<<blocks, kBlock, 0, stream>>>(particles, n, rhoFixed);
    solveField<<<1, kSolveThreads, 0, stream>>>(rhoFixed, rho, efield);
    pushParticles<PushReal><<<blocks, kBlock, 0, stream>>>(particles, n, efield);
    CUDA_CHECK(cudaMemcpyAsync(hostField.data(), efield, sizeof(float) * ncells, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double we = 0.0;
    for (float e : hostField) we += 0.5 * e * e * params.dx;
    fieldEnergy[step] = we;
  }
  kineticEnergy<<<kEnergyBlocks, kBlock, 0, stream>>>(particles, n, partial);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop, stream));
  std::vector<double2> hostPartial(kEnergyBlocks);
  std::vector<double> hostRho(ncells);
  CUDA_CHECK(cudaMemcpyAsync(hostRho.data(), rho, sizeof(double) * ncells, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(hostPartial.data(), partial, sizeof(double2) * kEnergyBlocks, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(hostParticles, particles, sizeof(Particle) * n, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float gpuMs = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&gpuMs, start, stop));
  double netCharge = 0.0;
  for (double r : hostRho) netCharge += r * params.dx;
  double gpuKinetic = 0.0, gpuMomentum = 0.0;
  for (const double2& s : hostPartial) {
    gpuKinetic += s.x;
    gpuMomentum += s.y;
  }

  FieldState field;
  double refFieldEnergy = 0.0;
  for (int step = 0; step < steps; ++step) referenceStep(reference, params, field);
  for (float e : field.efield) refFieldEnergy += 0.5 * e * e * params.dx;
  double refKinetic = referenceKineticEnergy(reference);

  // Positions are compared as periodic distances, velocities against the beam speed.
  double maxDx = 0.0, maxDv = 0.0, sumX = 0.0;
  for (int i = 0; i < n; ++i) {
    double d = std::fabs(hostParticles[i].x - reference[i].x);
    maxDx = std::max(maxDx, std::min(d, params.length - d));
    maxDv = std::max(maxDv, static_cast<double>(std::fabs(hostParticles[i].v - reference[i].v)));
    sumX += hostParticles[i].x;
  }
  const double tol = 1e-3;
  double keErr = std::fabs(gpuKinetic - refKinetic) / refKinetic;
  double weErr = std::fabs(fieldEnergy[steps - 1] - refFieldEnergy) / std::max(refFieldEnergy, 1e-30);
  std::printf("particles %d, cells %d, steps %d, GPU time %.3f ms\n", n, ncells, steps, gpuMs);
  std::printf("field energy: first %.6e last %.6e (CPU %.6e)\n", fieldEnergy[0], fieldEnergy[steps - 1],
              refFieldEnergy);
  std::printf("kinetic energy %.6f (CPU %.6f), momentum %.3e, net charge %.3e\n", gpuKinetic, refKinetic, gpuMomentum,
              netCharge);
  std::printf("mean position %.5f, max |dx| %.3e, max |dv| %.3e\n", sumX / n, maxDx, maxDv);
  bool passed = keErr < tol && weErr < tol && maxDx < tol * params.length && maxDv < tol;
  std::printf("%s (relative tolerance %.0e on energies, %.0e on particles)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
              tol, tol);

  cudaFree(partial);
  cudaFree(efield);
  cudaFree(rho);
  cudaFree(rhoFixed);
  cudaFree(particles);
  cudaFreeHost(hostParticles);
  cudaStreamDestroy(stream);
  return passed ? 0 : 1;
}
