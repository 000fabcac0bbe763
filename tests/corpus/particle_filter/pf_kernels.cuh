// Particle filter kernels: motion, measurement weights, cumulative weights, systematic resampling.
#pragma once
#include "pf.h"

__constant__ float2 c_landmarks[PF_MAX_LANDMARKS];
__constant__ float c_ranges[PF_MAX_LANDMARKS];
__constant__ int c_landmarkCount;

__global__ void predict(Particle* particles, int n, Control u, NoiseModel noise, int step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle& p = particles[i];
  move(p.x, p.y, p.theta, u, noise, i, step);
}

__device__ float likelihood(const Particle& p, float sigma) {
  float sum = 0;
  for (int k = 0; k < c_landmarkCount; ++k) {
    const float dx = c_landmarks[k].x - p.x, dy = c_landmarks[k].y - p.y;
    const float err = sqrtf(dx * dx + dy * dy) - c_ranges[k];
    sum += err * err;
  }
  return expf(-0.5f * sum / (sigma * sigma));
}

__global__ void weigh(Particle* particles, int n, float sigma) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) particles[i].weight = likelihood(particles[i], sigma);
}

// Inclusive prefix sum of the weights in one block: each thread scans a contiguous chunk, then the
// chunk totals are scanned in order by thread 0, so the sums do not depend on scheduling.
template <int THREADS>
__global__ void cumulativeWeights(const Particle* particles, int n, double* cdf) {
  __shared__ double chunkTotal[THREADS];
  const int chunk = (n + THREADS - 1) / THREADS;
  const int begin = threadIdx.x * chunk, end = min(begin + chunk, n);
  double running = 0;
  for (int i = begin; i < end; ++i) {
    running += particles[i].weight;
    cdf[i] = running;
  }
  chunkTotal[threadIdx.x] = running;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int t = 1; t < THREADS; ++t) chunkTotal[t] += chunkTotal[t - 1];
  __syncthreads();
  const double offset = threadIdx.x > 0 ? chunkTotal[threadIdx.x - 1] : 0.0;
  for (int i = begin; i < end; ++i) cdf[i] += offset;
}

// Systematic resampling: the j-th of n evenly spaced pointers, shifted by `start` in [0, 1), picks the
// first particle whose cumulative weight reaches it.
__global__ void resample(const Particle* in, Particle* out, int n, const double* cdf, float start) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const double total = cdf[n - 1];
  const double target = (j + double(start)) / n * total;
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (cdf[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  out[j] = in[lo];
  out[j].weight = 1.0f;
}
