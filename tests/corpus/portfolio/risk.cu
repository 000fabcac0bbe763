// Kernels of the value-at-risk engine: per-asset preparation, one block per scenario for the
// portfolio's P&L, and per-asset contributions over the tail scenarios.
#include "risk.cuh"

__constant__ float c_sectorLoading[NUM_SECTORS];

static const int kScenarioBlock = 256;

__global__ void prepareAssetsKernel(Asset* assets, int count, float horizonYears) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  Asset* a = &assets[i];
  a->muT = (a->drift - 0.5f * a->vol * a->vol) * horizonYears;
  a->sigmaT = a->vol * sqrtf(horizonYears);
}

__global__ void scenarioPnLKernel(const Asset* assets, int assetCount, int firstScenario, double* pnl) {
  __shared__ float sector[NUM_SECTORS];
  __shared__ double partial[kScenarioBlock];
  const uint32_t scenario = firstScenario + blockIdx.x;
  const float market = gaussian(kMarketStream, scenario);
  if (threadIdx.x < NUM_SECTORS) sector[threadIdx.x] = gaussian(kSectorStream + threadIdx.x, scenario);
  __syncthreads();
  double sum = 0.0;
  for (int i = threadIdx.x; i < assetCount; i += blockDim.x) {
    int s = assets[i].sector;
    sum += positionPnL(assets[i], market, sector[s], c_sectorLoading[s], scenario, i);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) pnl[blockIdx.x] = partial[0];
}

// Mean P&L of each asset over the tail scenarios: its share of the expected shortfall.
__global__ void tailContributionsKernel(const Asset* assets, int assetCount, const int* tailScenarios, int tailCount,
                                        double* contribution) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= assetCount) return;
  const Asset mine = assets[i];
  double sum = 0.0;
  for (int t = 0; t < tailCount; ++t) {
    uint32_t scenario = tailScenarios[t];
    float market = gaussian(kMarketStream, scenario);
    float sectorDraw = gaussian(kSectorStream + mine.sector, scenario);
    sum += positionPnL(mine, market, sectorDraw, c_sectorLoading[mine.sector], scenario, i);
  }
  contribution[i] = sum / tailCount;
}

void setSectorLoadings(const float* loadings) {
  cudaMemcpyToSymbol(c_sectorLoading, loadings, NUM_SECTORS * sizeof(float));
}

void prepareAssets(Asset* assets, int count, float horizonYears, cudaStream_t stream) {
  prepareAssetsKernel<<<(count + 255) / 256, 256, 0, stream>>>(assets, count, horizonYears);
}

void scenarioPnL(const Asset* assets, int assetCount, int firstScenario, int scenarios, double* pnl,
                 cudaStream_t stream) {
  scenarioPnLKernel<<<scenarios, kScenarioBlock, 0, stream>>>(assets, assetCount, firstScenario, pnl);
}

void tailContributions(const Asset* assets, int assetCount, const int* tailScenarios, int tailCount,
                       double* contribution, cudaStream_t stream) {
  tailContributionsKernel<<<(assetCount + 127) / 128, 128, 0, stream>>>(assets, assetCount, tailScenarios, tailCount,
                                                                          contribution);
}
