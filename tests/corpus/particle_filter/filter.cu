// The filter loop on the GPU; each step's ranges go to constant memory from a pinned buffer.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "pf_kernels.cuh"

#define CU(call)                                                                                    \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "particle_filter: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

static const int kScanThreads = 1024;

void runFilter(Particle* particles, int n, const float2* landmarks, int landmarkCount, const float* ranges,
               const Control* controls, int steps, NoiseModel noise) {
  cudaStream_t stream;
  CU(cudaStreamCreate(&stream));
  CU(cudaMemcpyToSymbol(c_landmarks, landmarks, landmarkCount * sizeof(float2)));
  CU(cudaMemcpyToSymbol(c_landmarkCount, &landmarkCount, sizeof(int)));

  float* pinnedRanges;
  CU(cudaMallocHost(&pinnedRanges, size_t(steps) * landmarkCount * sizeof(float)));
  memcpy(pinnedRanges, ranges, size_t(steps) * landmarkCount * sizeof(float));

  Particle *d_current, *d_next;
  double* d_cdf;
  CU(cudaMalloc(&d_current, n * sizeof(Particle)));
  CU(cudaMalloc(&d_next, n * sizeof(Particle)));
  CU(cudaMalloc(&d_cdf, n * sizeof(double)));
  CU(cudaMemcpyAsync(d_current, particles, n * sizeof(Particle), cudaMemcpyHostToDevice, stream));

  const int block = 256, grid = (n + block - 1) / block;
  for (int s = 0; s < steps; ++s) {
    CU(cudaMemcpyToSymbolAsync(c_ranges, pinnedRanges + s * landmarkCount, landmarkCount * sizeof(float), 0,
                               cudaMemcpyHostToDevice, stream));
    predict<<<grid, block, 0, stream>>>(d_current, n, controls[s], noise, s);
    weigh<<<grid, block, 0, stream>>>(d_current, n, noise.range);
    cumulativeWeights<kScanThreads><<<1, kScanThreads, 0, stream>>>(d_current, n, d_cdf);
    resample<<<grid, block, 0, stream>>>(d_current, d_next, n, d_cdf, uniform01(0xC0FFEEu, s));
    CU(cudaGetLastError());
    std::swap(d_current, d_next);
  }
  CU(cudaMemcpyAsync(particles, d_current, n * sizeof(Particle), cudaMemcpyDeviceToHost, stream));
  CU(cudaStreamSynchronize(stream));
  cudaFree(d_current);
  cudaFree(d_next);
  cudaFree(d_cdf);
  cudaFreeHost(pinnedRanges);
  cudaStreamDestroy(stream);
}
