// Monte Carlo neutron transport through a moderator / absorber / moderator slab: a point source,
// implicit capture, Russian roulette. Tallies absorption along x and leakage on both sides, and
// checks them against the same histories followed on the CPU.
// usage: mc_transport [neutrons] [max flights]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mc_kernels.cuh"

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

static const MaterialXS kMaterials[kRegions] = {{1.2f, 0.95f, 0.5f}, {2.0f, 0.3f, 0.2f}, {1.2f, 0.95f, 0.5f}};
static const float3 kOrigin = {0.5f, 0.0f, 0.0f};
static const float kSourceEnergy = 2.0f;
static const int kFates = 5;

// Tallies on the CPU; flight() is __host__ __device__, so these are too.
struct HostTally {
  unsigned long long absorbed[kBins] = {};
  unsigned long long leaked[2] = {};
  unsigned int fates[kFates] = {};
  MC_HD void absorb(int bin, float w) { absorbed[bin] += toFixed(w); }
  MC_HD void leak(int side, float w) { leaked[side] += toFixed(w); }
};

// The same histories, one neutron at a time.
static void transportOnHost(int count, int maxFlights, HostTally& tally) {
  for (int i = 0; i < count; ++i) {
    CounterRng rng(i, 0);
    Neutron n;
    n.pos = kOrigin;
    n.dir = isotropic(rng);
    n.energy = kSourceEnergy;
    n.weight = 1.0f;
    n.alive = 1;
    n.draws = rng.counter();
    for (int f = 0; f < maxFlights && n.alive; ++f) ++tally.fates[flight(n, i, kMaterials, tally)];
  }
}

static double fixedSum(const unsigned long long* v, int first, int last) {
  unsigned long long s = 0;
  for (int k = first; k < last; ++k) s += v[k];
  return s / kTallyScale;
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : (1 << 17);
  const int maxFlights = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (count < 1 || maxFlights < 1) {
    std::fprintf(stderr, "usage: %s [neutrons >= 1] [max flights >= 1]\n", argv[0]);
    return 2;
  }
  CUDA_CHECK(cudaMemcpyToSymbol(c_materials, kMaterials, sizeof(kMaterials)));

  Neutron* neutrons;
  DeviceTally tally;
  int* stillAlive;
  int* hostAlive;
  CUDA_CHECK(cudaMalloc(&neutrons, count * sizeof(Neutron)));
  CUDA_CHECK(cudaMallocManaged(&tally.absorbed, kBins * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMallocManaged(&tally.leaked, 2 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMallocManaged(&tally.fates, kFates * sizeof(unsigned int)));
  CUDA_CHECK(cudaMalloc(&stillAlive, sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&hostAlive, sizeof(int)));
  CUDA_CHECK(cudaMemset(tally.absorbed, 0, kBins * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(tally.leaked, 0, 2 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(tally.fates, 0, kFates * sizeof(unsigned int)));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  const int threads = 128, blocks = (count + threads - 1) / threads;
  CUDA_CHECK(cudaEventRecord(start, stream));
  sourceNeutrons<<<blocks, threads, 0, stream>>>(neutrons, count, kOrigin, kSourceEnergy);
  int flights = 0;
  do {
    CUDA_CHECK(cudaMemsetAsync(stillAlive, 0, sizeof(int), stream));
    transportStep<<<blocks, threads, 0, stream>>>(neutrons, count, tally, stillAlive);
    CUDA_CHECK(cudaMemcpyAsync(hostAlive, stillAlive, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  } while (*hostAlive > 0 && ++flights < maxFlights);
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaGetLastError());
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  HostTally reference;
  transportOnHost(count, maxFlights, reference);

  // Tallies per source neutron; regions are bins [0, 20), [20, 30), [30, 60).
  const int regionBins[kRegions + 1] = {0, 20, 30, kBins};
  double gpuRegion[kRegions], cpuRegion[kRegions], worst = 0.0;
  for (int r = 0; r < kRegions; ++r) {
    gpuRegion[r] = fixedSum(tally.absorbed, regionBins[r], regionBins[r + 1]) / count;
    cpuRegion[r] = fixedSum(reference.absorbed, regionBins[r], regionBins[r + 1]) / count;
    worst = std::max(worst, std::fabs(gpuRegion[r] - cpuRegion[r]));
  }
  double gpuLeak[2], cpuLeak[2];
  for (int s = 0; s < 2; ++s) {
    gpuLeak[s] = fixedSum(tally.leaked, s, s + 1) / count;
    cpuLeak[s] = fixedSum(reference.leaked, s, s + 1) / count;
    worst = std::max(worst, std::fabs(gpuLeak[s] - cpuLeak[s]));
  }
  for (int f = 0; f < kFates; ++f)
    worst = std::max(worst, std::fabs(static_cast<double>(tally.fates[f]) - reference.fates[f]) / count);

  std::printf("%d neutrons, GPU %.3f ms\n", count, ms);
  std::printf("absorbed per source neutron: moderator %.5f, absorber %.5f, far moderator %.5f\n", gpuRegion[0],
              gpuRegion[1], gpuRegion[2]);
  std::printf("leaked per source neutron: left %.5f, right %.5f\n", gpuLeak[0], gpuLeak[1]);
  std::printf("flights %u: crossings %u, thermalized %u, roulette kills %u\n",
              tally.fates[0] + tally.fates[1] + tally.fates[2] + tally.fates[3] + tally.fates[4], tally.fates[FLYING],
              tally.fates[ABSORBED_LOW_ENERGY], tally.fates[ROULETTE_KILLED]);
  std::printf("largest difference from the CPU, per source neutron: %.2e\n", worst);
  const double tol = 2e-3;
  bool passed = worst < tol;
  std::printf("%s (every tally within %.0e per source neutron of the CPU)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
              tol);

  cudaFreeHost(hostAlive);
  cudaFree(stillAlive);
  cudaFree(tally.fates);
  cudaFree(tally.leaked);
  cudaFree(tally.absorbed);
  cudaFree(neutrons);
  cudaStreamDestroy(stream);
  return passed ? 0 : 1;
}
