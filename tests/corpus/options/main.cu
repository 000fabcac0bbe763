// Prices a book of options with Black-Scholes (all of them) and a binomial lattice (the first few,
// American puts exercised early), on two streams, and checks both against a double-precision CPU run.
// usage: options [options] [lattice options] [lattice steps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pricing_kernels.cuh"
#include "reference.h"

#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t rc = call;                                                                    \
    if (rc != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(rc)); \
      exit(2);                                                                                \
    }                                                                                         \
  } while (0)

#define NUM_STREAMS 2

static unsigned long long rngState = 0x9E3779B97F4A7C15ull;
static float randomIn(float low, float high) {
  rngState = rngState * 6364136223846793005ull + 1442695040888963407ull;
  return low + (high - low) * (float)(rngState >> 40) / 16777216.0f;
}

static void makeBook(OptionData* book, int count) {
  for (int i = 0; i < count; ++i) {
    OptionData& o = book[i];
    o.spot = randomIn(10.0f, 100.0f);
    o.strike = o.spot * randomIn(0.7f, 1.3f);
    o.rate = randomIn(0.01f, 0.05f);
    o.volatility = randomIn(0.1f, 0.5f);
    o.expiry = randomIn(0.25f, 2.0f);
    o.style = randomIn(0.0f, 1.0f) < 0.5f ? EUROPEAN_CALL : AMERICAN_PUT;
  }
}

int main(int argc, char** argv) {
  int count = argc > 1 ? atoi(argv[1]) : (1 << 22);
  int latticeCount = argc > 2 ? atoi(argv[2]) : 1024;
  int steps = argc > 3 ? atoi(argv[3]) : 512;
  if (count < NUM_STREAMS || latticeCount < 1 || steps < 1 || steps > MAX_STEPS) {
    fprintf(stderr, "usage: %s [options >= %d] [lattice options >= 1] [lattice steps 1..%d]\n", argv[0], NUM_STREAMS,
            MAX_STEPS);
    return 2;
  }
  const int chunk = (count + NUM_STREAMS - 1) / NUM_STREAMS;
  latticeCount = std::min(latticeCount, chunk);  // the lattice prices options of the first stream's chunk

  OptionData* hostOptions;
  OptionResult* hostResults;
  CHECK(cudaMallocHost((void**)&hostOptions, count * sizeof(OptionData)));
  CHECK(cudaMallocHost((void**)&hostResults, count * sizeof(OptionResult)));
  makeBook(hostOptions, count);

  OptionData* options;
  OptionResult* results;
  CHECK(cudaMalloc((void**)&options, count * sizeof(OptionData)));
  CHECK(cudaMalloc((void**)&results, count * sizeof(OptionResult)));
  CHECK(cudaMemcpyToSymbol(c_steps, &steps, sizeof(int)));

  cudaStream_t streams[NUM_STREAMS];
  for (int s = 0; s < NUM_STREAMS; ++s) CHECK(cudaStreamCreate(&streams[s]));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  for (int s = 0; s < NUM_STREAMS; ++s) {
    int first = s * chunk;
    int n = std::min(chunk, count - first);
    CHECK(cudaMemcpyAsync(options + first, hostOptions + first, n * sizeof(OptionData), cudaMemcpyHostToDevice,
                          streams[s]));
    blackScholesKernel<<<std::min((n + 255) / 256, 1024), 256, 0, streams[s]>>>(options + first, results + first, n);
    if (s == 0) binomialKernel<<<latticeCount, 256, 0, streams[s]>>>(options, results, latticeCount);
    CHECK(cudaMemcpyAsync(hostResults + first, results + first, n * sizeof(OptionResult), cudaMemcpyDeviceToHost,
                          streams[s]));
  }
  CHECK(cudaGetLastError());
  for (int s = 0; s < NUM_STREAMS; ++s) CHECK(cudaStreamSynchronize(streams[s]));
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<double> price(count), delta(count), lattice(latticeCount);
  referenceBlackScholes(hostOptions, count, price.data(), delta.data());
  referenceBinomial(hostOptions, latticeCount, steps, lattice.data());

  // Float on the GPU against double on the CPU: errors relative to the price, or absolute below 1.
  double maxBs = 0, maxDelta = 0, maxLattice = 0, sumBs = 0, sumLattice = 0, maxPremium = 0;
  for (int i = 0; i < count; ++i) {
    maxBs = std::max(maxBs, fabs(hostResults[i].blackScholes - price[i]) / std::max(1.0, fabs(price[i])));
    maxDelta = std::max(maxDelta, fabs(hostResults[i].delta - delta[i]));
    sumBs += hostResults[i].blackScholes;
  }
  for (int i = 0; i < latticeCount; ++i) {
    maxLattice = std::max(maxLattice, fabs(hostResults[i].binomial - lattice[i]) / std::max(1.0, fabs(lattice[i])));
    sumLattice += hostResults[i].binomial;
    if (hostOptions[i].style == AMERICAN_PUT) maxPremium = std::max(maxPremium, lattice[i] - price[i]);
  }
  printf("%d options (%d on a %d-step lattice), GPU %.3f ms\n", count, latticeCount, steps, ms);
  printf("mean Black-Scholes price %.4f, mean lattice price %.4f\n", sumBs / count, sumLattice / latticeCount);
  printf("largest early-exercise premium of an American put %.4f\n", maxPremium);
  printf("max error: Black-Scholes %.2e, delta %.2e, lattice %.2e\n", maxBs, maxDelta, maxLattice);
  bool passed = maxBs < 5e-4 && maxDelta < 5e-4 && maxLattice < 2e-3;
  printf("%s (Black-Scholes and delta within 5e-4, lattice within 2e-3, relative above 1)\n",
         passed ? "CHECK PASSED" : "CHECK FAILED");

  for (int s = 0; s < NUM_STREAMS; ++s) cudaStreamDestroy(streams[s]);
  cudaFree(results);
  cudaFree(options);
  cudaFreeHost(hostResults);
  cudaFreeHost(hostOptions);
  return passed ? 0 : 1;
}
