/* Positions of the portfolio and the random factors that move them (one market factor, one
 * factor per sector, one idiosyncratic shock per asset and scenario). */
#ifndef PORTFOLIO_ASSET_H
#define PORTFOLIO_ASSET_H

#include <math.h>
#include <stdint.h>

#define NUM_SECTORS 8

typedef struct _Asset {
  float spot;      /* price today */
  float quantity;  /* units held (negative: short) */
  float drift;     /* annual expected return */
  float vol;       /* annual volatility */
  float beta;      /* loading on the market factor */
  int sector;
  float muT;       /* (drift - vol^2 / 2) * horizon, filled in on the GPU */
  float sigmaT;    /* vol * sqrt(horizon), filled in on the GPU */
} Asset;

#ifdef __CUDACC__
#define RISK_FN __host__ __device__ inline
#else
#define RISK_FN inline
#endif

RISK_FN uint32_t scramble(uint32_t a, uint32_t b) {
  uint32_t h = a * 0x85EBCA6Bu ^ (b + 0x165667B1u) * 0xC2B2AE35u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

/* A standard normal draw for the pair (stream, index), by Box-Muller on two hashed uniforms. */
RISK_FN float gaussian(uint32_t stream, uint32_t index) {
  float u1 = ((scramble(stream, 2 * index) >> 8) + 1) * (1.0f / 16777217.0f);
  float u2 = (scramble(stream, 2 * index + 1) >> 8) * (1.0f / 16777216.0f);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

#endif
