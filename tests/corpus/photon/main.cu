// Monte Carlo photon migration through layered tissue: diffuse reflectance, transmittance and
// the fraction absorbed in each layer. Usage: photon [photons] [cpuPhotons]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mc_kernels.h"
#include "photon.cuh"

#define CUDA_OK(call)                                                          \
  if ((call) != cudaSuccess) {                                                 \
    fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
            cudaGetErrorString(cudaGetLastError()));                           \
    return 2;                                                                  \
  }

static const unsigned int kSeed = 1234567u;
static const int kMaxSteps = 200000;
static const int kTallies = 2 + MAX_LAYERS;

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 19;
  int cpuPhotons = argc > 2 ? atoi(argv[2]) : 8192;
  if (n < 2 || cpuPhotons < 1) {
    fprintf(stderr, "usage: %s [photons >= 2] [photons checked on the CPU]\n", argv[0]);
    return 2;
  }
  if (cpuPhotons > n) cpuPhotons = n;

  Layer layers[MAX_LAYERS];
  int layerCount = defaultTissue(layers);
  uploadTissue(layers, layerCount);

  // Two batches on two streams, each with its own part of one untyped photon buffer.
  const int batches = 2;
  int batchSize[batches] = {n / 2, n - n / 2};
  int batchFirst[batches] = {0, n / 2};
  int batchBlocks[batches];
  int totalBlocks = 0;
  for (int b = 0; b < batches; ++b) {
    batchBlocks[b] = (batchSize[b] + kTallyBlock - 1) / kTallyBlock;
    totalBlocks += batchBlocks[b];
  }
  char* photonBuffer;
  double* d_sums;
  double* h_sums;
  CUDA_OK(cudaMalloc((void**)&photonBuffer, (size_t)n * sizeof(Photon)));
  CUDA_OK(cudaMalloc(&d_sums, (size_t)totalBlocks * kTallies * sizeof(double)));
  CUDA_OK(cudaMallocHost(&h_sums, (size_t)totalBlocks * kTallies * sizeof(double)));
  cudaStream_t streams[batches];
  int blockOffset = 0;
  for (int b = 0; b < batches; ++b) {
    CUDA_OK(cudaStreamCreate(&streams[b]));
    // Each batch seeds its photons from its first index.
    runPhotons(photonBuffer + (size_t)batchFirst[b] * sizeof(Photon), batchSize[b],
               kSeed + 7919u * (unsigned int)batchFirst[b], kMaxSteps, d_sums + blockOffset * kTallies, streams[b]);
    CUDA_OK(cudaMemcpyAsync(h_sums + blockOffset * kTallies, d_sums + blockOffset * kTallies,
                            batchBlocks[b] * kTallies * sizeof(double), cudaMemcpyDeviceToHost, streams[b]));
    blockOffset += batchBlocks[b];
  }
  std::vector<Photon> gpuFirst(cpuPhotons);
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(gpuFirst.data(), photonBuffer, cpuPhotons * sizeof(Photon), cudaMemcpyDeviceToHost));

  double total[kTallies] = {0};
  for (int blk = 0; blk < totalBlocks; ++blk)
    for (int t = 0; t < kTallies; ++t) total[t] += h_sums[blk * kTallies + t];

  // The CPU walks the first cpuPhotons packets with the same code; the GPU's fused multiply-adds
  // can send a few of them along another path, so the fractions agree within a tolerance.
  const double tolerance = 0.02;
  double cpu[kTallies] = {0}, gpu[kTallies] = {0};
  for (int i = 0; i < cpuPhotons; ++i) {
    Photon p;
    // Photon i of batch b has seed kSeed + 7919 * first(b) ^ hash(i - first(b)).
    int b = i < batchFirst[1] ? 0 : 1;
    launchPhoton(&p, (kSeed + 7919u * (unsigned int)batchFirst[b]) ^
                         (2654435761u * (unsigned int)(i - batchFirst[b] + 1)));
    for (int step = 0; step < kMaxSteps && p.layer >= 0; ++step) stepPhoton(p, layers, layerCount);
    cpu[0] += p.reflected;
    cpu[1] += p.transmitted;
    gpu[0] += gpuFirst[i].reflected;
    gpu[1] += gpuFirst[i].transmitted;
    for (int l = 0; l < MAX_LAYERS; ++l) {
      cpu[2 + l] += p.absorbed[l];
      gpu[2 + l] += gpuFirst[i].absorbed[l];
    }
  }
  double worst = 0;
  for (int t = 0; t < kTallies; ++t) worst = fmax(worst, fabs(cpu[t] - gpu[t]) / cpuPhotons);

  printf("photons %d in %d layers\n", n, layerCount);
  printf("diffuse reflectance %.5f, transmittance %.5f\n", total[0] / n, total[1] / n);
  printf("absorbed:");
  for (int l = 0; l < layerCount; ++l) printf(" layer%d %.5f", l, total[2 + l] / n);
  printf("\n");
  printf("first %d photons, GPU vs CPU: reflectance %.5f vs %.5f, largest difference %.5f\n", cpuPhotons,
         gpu[0] / cpuPhotons, cpu[0] / cpuPhotons, worst);
  bool passed = worst <= tolerance;
  printf("%s (every tally fraction of the first %d photons within %.2f)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
         cpuPhotons, tolerance);

  for (int b = 0; b < batches; ++b) cudaStreamDestroy(streams[b]);
  cudaFreeHost(h_sums);
  cudaFree(d_sums);
  cudaFree(photonBuffer);
  return passed ? 0 : 1;
}
