// Keyed tallies: how often each of 64 buckets is hit by a key array, and the keys' total weight.
#pragma once
#include <cuda_runtime.h>

#include <vector>

struct Tally {
  int hits;
  float weight;
};

template <typename Key>
__global__ void countKeys(const Key* keys, int n, Tally* tallies) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int bucket = int(keys[i]) & 63;
  atomicAdd(&tallies[bucket].hits, 1);
  atomicAdd(&tallies[bucket].weight, float(keys[i]) * 0.5f);
}

__global__ void clearTallies(Tally* tallies, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tallies[i] = Tally{0, 0.f};
}

// Copies the keys to the device and counts them (the kernel's argument is deduced per Key).
template <typename Key>
void tally(const std::vector<Key>& keys, Tally* tallies) {
  Key* d = nullptr;
  cudaMalloc(&d, keys.size() * sizeof(Key));
  cudaMemcpy(d, keys.data(), keys.size() * sizeof(Key), cudaMemcpyHostToDevice);
  countKeys<<<(keys.size() + 255) / 256, 256>>>(d, int(keys.size()), tallies);
  cudaFree(d);
}

// Clears the tallies the same way for every Key.
template <typename Key>
void reset(Tally* tallies, int n) {
  clearTallies<<<(n + 255) / 256, 256>>>(tallies, n);
}
