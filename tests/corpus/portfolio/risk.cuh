// Device side of the value-at-risk engine.
#pragma once

#include <cuda_runtime.h>

#include "asset.h"

static const uint32_t kMarketStream = 0x4D4B54u;
static const uint32_t kSectorStream = 0x534543u;

// Profit or loss of one position in one scenario, given the scenario's market and sector draws.
RISK_FN double positionPnL(const Asset& a, float market, float sectorDraw, float sectorLoading, uint32_t scenario,
                           uint32_t assetIndex) {
  float idio = gaussian(scenario + 1u, assetIndex);
  float residual = sqrtf(fmaxf(0.0f, 1.0f - a.beta * a.beta - sectorLoading * sectorLoading));
  float z = a.beta * market + sectorLoading * sectorDraw + residual * idio;
  float growth = expf(a.muT + a.sigmaT * z) - 1.0f;
  return (double)a.quantity * a.spot * growth;
}

void prepareAssets(Asset* assets, int count, float horizonYears, cudaStream_t stream);
void scenarioPnL(const Asset* assets, int assetCount, int firstScenario, int scenarios, double* pnl,
                 cudaStream_t stream);
void tailContributions(const Asset* assets, int assetCount, const int* tailScenarios, int tailCount,
                       double* contribution, cudaStream_t stream);
void setSectorLoadings(const float* loadings);
