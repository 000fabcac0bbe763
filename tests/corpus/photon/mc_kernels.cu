// The GPU side: the tissue in constant memory, one thread per photon packet, block tallies.
#include "mc_kernels.h"
#include "photon.cuh"

__constant__ Layer c_layers[MAX_LAYERS];
__constant__ int c_layerCount;

__global__ void initPhotons(Photon* photons, int n, unsigned int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) launchPhoton(&photons[i], seed ^ (2654435761u * (unsigned int)(i + 1)));
}

__global__ void propagatePhotons(Photon* photons, int n, int maxSteps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Photon p = photons[i];
  for (int step = 0; step < maxSteps && p.layer >= 0; ++step) stepPhoton(p, c_layers, c_layerCount);
  photons[i] = p;
}

// Per block: reflected, transmitted and absorbed per layer, summed in a fixed order in Acc.
template <typename Acc>
__global__ void tallyPhotons(const Photon* photons, int n, Acc* blockSums) {
  const int kTallies = 2 + MAX_LAYERS;
  __shared__ Acc partial[kTallyBlock][2 + MAX_LAYERS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = 0; t < kTallies; ++t) partial[threadIdx.x][t] = 0;
  if (i < n) {
    partial[threadIdx.x][0] = photons[i].reflected;
    partial[threadIdx.x][1] = photons[i].transmitted;
    for (int l = 0; l < MAX_LAYERS; ++l) partial[threadIdx.x][2 + l] = photons[i].absorbed[l];
  }
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      for (int t = 0; t < kTallies; ++t) partial[threadIdx.x][t] += partial[threadIdx.x + stride][t];
    __syncthreads();
  }
  if (threadIdx.x < kTallies) blockSums[blockIdx.x * kTallies + threadIdx.x] = partial[0][threadIdx.x];
}

void uploadTissue(const Layer* layers, int count) {
  cudaMemcpyToSymbol(c_layers, layers, count * sizeof(Layer));
  cudaMemcpyToSymbol(c_layerCount, &count, sizeof(int));
}

void runPhotons(void* photonBuffer, int n, unsigned int seed, int maxSteps, double* blockSums, cudaStream_t stream) {
  int blocks = (n + kTallyBlock - 1) / kTallyBlock;
  const int walkBlock = 128;  // long, divergent threads: smaller blocks keep more of them resident
  initPhotons<<<blocks, kTallyBlock, 0, stream>>>((Photon*)photonBuffer, n, seed);
  propagatePhotons<<<(n + walkBlock - 1) / walkBlock, walkBlock, 0, stream>>>((Photon*)photonBuffer, n, maxSteps);
  tallyPhotons<double><<<blocks, kTallyBlock, 0, stream>>>((const Photon*)photonBuffer, n, blockSums);
}
