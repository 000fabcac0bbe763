// Photon packets and the steps of their random walk, shared by the GPU kernels and the CPU check.
#pragma once

#include <cuda_runtime.h>
#include <math.h>

#include "tissue.h"

#ifdef __CUDACC__
#define MC_FUNC __host__ __device__ __forceinline__
#else
#define MC_FUNC inline
#endif

typedef struct {
  float3 pos;
  float3 dir;
  float weight;
  int layer;     // -1 once escaped or terminated
  unsigned int rng;
  float reflected;
  float transmitted;
  float absorbed[MAX_LAYERS];
} Photon;

static const float kRouletteThreshold = 1e-4f;
static const float kRouletteChance = 0.1f;

MC_FUNC float uniform01(unsigned int& state) {
  // xorshift32, 24 significant bits, never 0.
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return ((state >> 8) + 1) * (1.0f / 16777217.0f);
}

MC_FUNC void launchPhoton(Photon* p, unsigned int seed) {
  p->pos = make_float3(0.0f, 0.0f, 0.0f);
  p->dir = make_float3(0.0f, 0.0f, 1.0f);
  p->weight = 1.0f;
  p->layer = 0;
  p->rng = seed | 1u;
  p->reflected = 0.0f;
  p->transmitted = 0.0f;
  for (int l = 0; l < MAX_LAYERS; ++l) p->absorbed[l] = 0.0f;
}

// Henyey-Greenstein deflection and the new direction (MCML's formulas).
MC_FUNC void scatter(Photon& p, float g) {
  float u = uniform01(p.rng);
  float cost;
  if (g == 0.0f) {
    cost = 2.0f * u - 1.0f;
  } else {
    float t = (1.0f - g * g) / (1.0f - g + 2.0f * g * u);
    cost = (1.0f + g * g - t * t) / (2.0f * g);
    cost = fminf(1.0f, fmaxf(-1.0f, cost));
  }
  float sint = sqrtf(1.0f - cost * cost);
  float phi = 6.2831853f * uniform01(p.rng);
  float cosp = cosf(phi), sinp = sinf(phi);
  float3 d = p.dir;
  if (fabsf(d.z) > 0.99999f) {
    p.dir = make_float3(sint * cosp, sint * sinp, copysignf(cost, d.z));
  } else {
    float temp = sqrtf(1.0f - d.z * d.z);
    p.dir.x = sint * (d.x * d.z * cosp - d.y * sinp) / temp + d.x * cost;
    p.dir.y = sint * (d.y * d.z * cosp + d.x * sinp) / temp + d.y * cost;
    p.dir.z = -sint * cosp * temp + d.z * cost;
  }
}

// One hop of a packet: free path, crossing into the next layer or out of the tissue, absorption,
// scattering, roulette. Returns false once the packet is gone.
MC_FUNC bool stepPhoton(Photon& p, const Layer* layers, int layerCount) {
  const Layer& L = layers[p.layer];
  float mut = L.mua + L.mus;
  float s = -logf(uniform01(p.rng)) / mut;
  float dz = p.dir.z;
  float toBoundary = dz > 0.0f ? (L.z1 - p.pos.z) / dz : dz < 0.0f ? (L.z0 - p.pos.z) / dz : 1e30f;
  if (s >= toBoundary) {
    p.pos.x += toBoundary * p.dir.x;
    p.pos.y += toBoundary * p.dir.y;
    p.pos.z = dz > 0.0f ? L.z1 : L.z0;
    int next = p.layer + (dz > 0.0f ? 1 : -1);
    if (next < 0) {
      p.reflected += p.weight;
      p.layer = -1;
      return false;
    }
    if (next >= layerCount) {
      p.transmitted += p.weight;
      p.layer = -1;
      return false;
    }
    p.layer = next;  // index-matched: no Fresnel reflection inside the tissue
    return true;
  }
  p.pos.x += s * p.dir.x;
  p.pos.y += s * p.dir.y;
  p.pos.z += s * p.dir.z;
  float dw = p.weight * L.mua / mut;
  p.absorbed[p.layer] += dw;
  p.weight -= dw;
  scatter(p, L.g);
  if (p.weight < kRouletteThreshold) {
    if (uniform01(p.rng) < kRouletteChance) {
      p.weight /= kRouletteChance;
    } else {
      p.layer = -1;
      return false;
    }
  }
  return true;
}
