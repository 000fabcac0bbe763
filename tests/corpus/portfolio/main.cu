// Monte Carlo value-at-risk of an equity portfolio under a one-factor-plus-sectors model.
// Usage: portfolio [assets] [scenarios]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "asset.h"
#include "risk.cuh"

#define CUDA_TRY(expr)                                                                       \
  do {                                                                                       \
    cudaError_t rc = (expr);                                                                 \
    if (rc != cudaSuccess) {                                                                 \
      fprintf(stderr, "portfolio: %s failed at line %d: %s\n", #expr, __LINE__, cudaGetErrorString(rc)); \
      exit(2);                                                                               \
    }                                                                                        \
  } while (0)

static const float kHorizon = 10.0f / 252.0f;  // ten trading days
static const int kStreams = 2;
static const int kBatches = 4;

static void makePortfolio(Asset* assets, int count) {
  for (int i = 0; i < count; ++i) {
    uint32_t h = scramble(0xA55E7u, i);
    Asset& a = assets[i];
    a.spot = 10.0f + (h % 19000u) * 0.01f;
    a.quantity = (float)(100 + (int)((h >> 12) % 900u)) * ((h & 15u) == 0 ? -1.0f : 1.0f);
    a.drift = 0.02f + ((h >> 4) % 100u) * 0.001f;
    a.vol = 0.12f + ((h >> 9) % 50u) * 0.006f;
    a.beta = 0.3f + ((h >> 14) % 50u) * 0.01f;
    a.sector = (int)((h >> 20) % NUM_SECTORS);
    a.muT = 0.0f;
    a.sigmaT = 0.0f;
  }
}

int main(int argc, char** argv) {
  int assetCount = argc > 1 ? atoi(argv[1]) : 2048;
  int scenarios = argc > 2 ? atoi(argv[2]) : 32768;
  if (assetCount < 1 || scenarios < 100 * kBatches) {
    fprintf(stderr, "usage: %s [assets >= 1] [scenarios >= %d]\n", argv[0], 100 * kBatches);
    return 2;
  }
  const float sectorLoadings[NUM_SECTORS] = {0.30f, 0.25f, 0.35f, 0.20f, 0.40f, 0.30f, 0.15f, 0.25f};
  setSectorLoadings(sectorLoadings);

  // Pinned host memory, so the copies below run asynchronously on their streams.
  Asset* hostAssets;
  double* hostPnL;
  CUDA_TRY(cudaMallocHost(&hostAssets, assetCount * sizeof(Asset)));
  CUDA_TRY(cudaMallocHost(&hostPnL, scenarios * sizeof(double)));
  makePortfolio(hostAssets, assetCount);

  Asset* devAssets;
  double* devPnL;
  CUDA_TRY(cudaMalloc(&devAssets, assetCount * sizeof(Asset)));
  CUDA_TRY(cudaMalloc(&devPnL, scenarios * sizeof(double)));
  cudaStream_t streams[kStreams];
  for (int s = 0; s < kStreams; ++s) CUDA_TRY(cudaStreamCreate(&streams[s]));
  cudaEvent_t prepared;
  CUDA_TRY(cudaEventCreate(&prepared));

  CUDA_TRY(cudaMemcpyAsync(devAssets, hostAssets, assetCount * sizeof(Asset), cudaMemcpyHostToDevice, streams[0]));
  prepareAssets(devAssets, assetCount, kHorizon, streams[0]);
  CUDA_TRY(cudaEventRecord(prepared, streams[0]));
  for (int s = 1; s < kStreams; ++s) CUDA_TRY(cudaStreamWaitEvent(streams[s], prepared, 0));

  // Scenario batches alternate between the streams; each copies its P&L back when done.
  const int perBatch = (scenarios + kBatches - 1) / kBatches;
  for (int b = 0; b < kBatches; ++b) {
    int first = b * perBatch, count = std::min(perBatch, scenarios - first);
    if (count <= 0) break;
    cudaStream_t st = streams[b % kStreams];
    scenarioPnL(devAssets, assetCount, first, count, devPnL + first, st);
    CUDA_TRY(cudaMemcpyAsync(hostPnL + first, devPnL + first, count * sizeof(double), cudaMemcpyDeviceToHost, st));
  }
  CUDA_TRY(cudaDeviceSynchronize());
  CUDA_TRY(cudaGetLastError());

  // 99% VaR and expected shortfall from the sorted P&L; the tail scenarios go back to the GPU.
  std::vector<int> order(scenarios);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return hostPnL[a] < hostPnL[b]; });
  const int tailCount = std::max(1, scenarios / 100);
  double var99 = -hostPnL[order[tailCount - 1]], es = 0.0;
  for (int t = 0; t < tailCount; ++t) es -= hostPnL[order[t]] / tailCount;

  int* devTail;
  double* devContribution;
  CUDA_TRY(cudaMalloc(&devTail, tailCount * sizeof(int)));
  CUDA_TRY(cudaMalloc(&devContribution, assetCount * sizeof(double)));
  CUDA_TRY(cudaMemcpy(devTail, order.data(), tailCount * sizeof(int), cudaMemcpyHostToDevice));
  tailContributions(devAssets, assetCount, devTail, tailCount, devContribution, streams[0]);
  std::vector<double> contribution(assetCount);
  CUDA_TRY(cudaMemcpyAsync(contribution.data(), devContribution, assetCount * sizeof(double), cudaMemcpyDeviceToHost,
                           streams[0]));
  CUDA_TRY(cudaStreamSynchronize(streams[0]));

  // CPU reference: the same model for the first scenarios and for every asset's tail contribution.
  double gross = 0.0;
  for (int i = 0; i < assetCount; ++i) {
    Asset& a = hostAssets[i];
    a.muT = (a.drift - 0.5f * a.vol * a.vol) * kHorizon;
    a.sigmaT = a.vol * sqrtf(kHorizon);
    gross += fabs((double)a.quantity * a.spot);
  }
  const int checked = std::min(scenarios, 1024);
  double worstPnL = 0.0, worstContribution = 0.0, contributionSum = 0.0;
  for (int s = 0; s < checked; ++s) {
    float market = gaussian(kMarketStream, s);
    double sum = 0.0;
    for (int i = 0; i < assetCount; ++i) {
      const Asset& a = hostAssets[i];
      sum += positionPnL(a, market, gaussian(kSectorStream + a.sector, s), sectorLoadings[a.sector], s, i);
    }
    worstPnL = std::max(worstPnL, fabs(sum - hostPnL[s]));
  }
  for (int i = 0; i < assetCount; ++i) {
    const Asset& a = hostAssets[i];
    double sum = 0.0;
    for (int t = 0; t < tailCount; ++t) {
      int s = order[t];
      sum += positionPnL(a, gaussian(kMarketStream, s), gaussian(kSectorStream + a.sector, s), sectorLoadings[a.sector],
                         s, i);
    }
    worstContribution = std::max(worstContribution, fabs(sum / tailCount - contribution[i]));
    contributionSum += contribution[i];
  }
  // Float transcendental functions differ by an ulp or so between GPU and CPU: 1e-7 of the gross
  // exposure for scenario P&L, 1e-8 of it for each position's contribution.
  const double pnlTol = 1e-7 * gross, contributionTol = 1e-8 * gross;
  bool passed = worstPnL <= pnlTol && worstContribution <= contributionTol;
  printf("assets %d, scenarios %d, gross exposure %.2f\n", assetCount, scenarios, gross);
  printf("10-day 99%% VaR %.2f, expected shortfall %.2f (sum of contributions %.2f)\n", var99, es, -contributionSum);
  printf("worst scenario %d: %.2f, best: %.2f\n", order[0], hostPnL[order[0]], hostPnL[order[scenarios - 1]]);
  printf("largest difference from the CPU: scenario P&L %.3e, contribution %.3e\n", worstPnL, worstContribution);
  printf("%s (first %d scenarios within %.2f, contributions within %.3f)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
         checked, pnlTol, contributionTol);

  cudaFree(devContribution);
  cudaFree(devTail);
  cudaEventDestroy(prepared);
  for (int s = 0; s < kStreams; ++s) cudaStreamDestroy(streams[s]);
  cudaFree(devPnL);
  cudaFree(devAssets);
  cudaFreeHost(hostPnL);
  cudaFreeHost(hostAssets);
  return passed ? 0 : 1;
}
