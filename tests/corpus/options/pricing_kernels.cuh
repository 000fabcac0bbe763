// Closed-form and lattice pricing kernels.
#pragma once
#include "option_types.h"

#define MAX_STEPS 2048

__constant__ int c_steps;  // time steps of the binomial lattice

__global__ void blackScholesKernel(const OptionData* options, OptionResult* results, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x) {
    float price, delta;
    blackScholes<float>(options[i], price, delta);
    results[i].blackScholes = price;
    results[i].delta = delta;
  }
}

// One block per option: Cox-Ross-Rubinstein lattice rolled back from expiry, two shared buffers.
__global__ void binomialKernel(const OptionData* options, OptionResult* results, int count) {
  __shared__ float bufferA[MAX_STEPS + 1];
  __shared__ float bufferB[MAX_STEPS + 1];
  if (blockIdx.x >= count) return;
  const OptionData* opt = &options[blockIdx.x];
  const int steps = c_steps;
  const float dt = opt->expiry / steps;
  const float up = expf(opt->volatility * sqrtf(dt));
  const float down = 1.0f / up;
  const float growth = expf(opt->rate * dt);
  const float pUp = (growth - down) / (up - down);
  const float discount = 1.0f / growth;
  const bool american = opt->style == AMERICAN_PUT;
  const float spot = opt->spot, strike = opt->strike;

  float* current = bufferA;
  float* next = bufferB;
  for (int i = threadIdx.x; i <= steps; i += blockDim.x) {
    float s = spot * powf(up, static_cast<float>(2 * i - steps));
    current[i] = american ? fmaxf(strike - s, 0.0f) : fmaxf(s - strike, 0.0f);
  }
  __syncthreads();
  for (int level = steps - 1; level >= 0; --level) {
    for (int i = threadIdx.x; i <= level; i += blockDim.x) {
      float hold = discount * (pUp * current[i + 1] + (1.0f - pUp) * current[i]);
      if (american) hold = fmaxf(hold, strike - spot * powf(up, static_cast<float>(2 * i - level)));
      next[i] = hold;
    }
    __syncthreads();
    float* swap = current;
    current = next;
    next = swap;
  }
  if (threadIdx.x == 0) results[blockIdx.x].binomial = current[0];
}
