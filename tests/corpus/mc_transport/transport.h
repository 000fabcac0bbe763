// Neutron records and one flight of a neutron through a slab of three materials, shared by the
// kernel and the CPU reference.
#pragma once
#include <cuda_runtime.h>
#include <math.h>

#include "rng.h"

struct Neutron {
  float3 pos;
  float3 dir;    // unit vector
  float energy;  // MeV
  float weight;
  int alive;
  unsigned int draws;  // random numbers used so far (the counter of its stream)
};

struct MaterialXS {
  float sigmaTotal;    // 1/cm at 1 MeV
  float scatterRatio;  // scattering share of a collision; the rest is absorbed (implicit capture)
  float energyLoss;    // largest fraction of its energy a neutron loses in a scatter
};

const int kRegions = 3;
const float kSlabLeft = 0.0f, kSlabRight = 6.0f;  // moderator [0, 2), absorber [2, 3), moderator [3, 6)
const int kBins = 60;                             // absorption tally bins along x
const float kBinWidth = 6.0f / kBins;
const float kMinEnergy = 1e-3f;
const float kRouletteWeight = 0.05f;
const double kTallyScale = 4294967296.0;  // tallies are 32.32 fixed point: integer sums do not depend on order

enum Fate { FLYING = 0, ABSORBED_LOW_ENERGY = 1, LEAKED_LEFT = 2, LEAKED_RIGHT = 3, ROULETTE_KILLED = 4 };

MC_HD inline int regionOf(float x) { return x < 2.0f ? 0 : (x < 3.0f ? 1 : 2); }
MC_HD inline float regionLow(int r) { return r == 0 ? 0.0f : (r == 1 ? 2.0f : 3.0f); }
MC_HD inline float regionHigh(int r) { return r == 0 ? 2.0f : (r == 1 ? 3.0f : 6.0f); }
MC_HD inline unsigned long long toFixed(float w) { return static_cast<unsigned long long>(w * kTallyScale); }
MC_HD inline int binOf(float x) {
  int b = static_cast<int>(x / kBinWidth);
  return b < 0 ? 0 : (b >= kBins ? kBins - 1 : b);
}

MC_HD inline float3 isotropic(CounterRng& rng) {
  float mu = 2.0f * rng.uniform() - 1.0f;
  float phi = 6.28318531f * rng.uniform();
  float s = sqrtf(fmaxf(0.0f, 1.0f - mu * mu));
  return make_float3(mu, s * cosf(phi), s * sinf(phi));
}

// One flight of neutron `id` and what ends it: a crossing into the next region, a leak, or a
// collision (implicit capture deposits weight * (1 - scatter ratio), then an isotropic scatter that
// loses energy). Tally provides absorb(bin, weight) and leak(side, weight).
template <typename Tally>
MC_HD int flight(Neutron& n, unsigned int id, const MaterialXS* materials, Tally& tally) {
  CounterRng rng(id, n.draws);
  const int region = regionOf(n.pos.x);
  const MaterialXS& m = materials[region];
  const float sigma = m.sigmaTotal * (1.0f + 0.5f / sqrtf(n.energy));
  const float distance = -logf(rng.uniform()) / sigma;
  float toEdge = 1e30f;
  if (n.dir.x > 0.0f) toEdge = (regionHigh(region) - n.pos.x) / n.dir.x;
  if (n.dir.x < 0.0f) toEdge = (regionLow(region) - n.pos.x) / n.dir.x;
  int fate = FLYING;
  if (distance >= toEdge) {
    // Cross the surface, a hair beyond it so that the next flight starts in the next region.
    float step = toEdge + 1e-5f;
    n.pos = make_float3(n.pos.x + step * n.dir.x, n.pos.y + step * n.dir.y, n.pos.z + step * n.dir.z);
    if (n.pos.x < kSlabLeft || n.pos.x >= kSlabRight) {
      fate = n.pos.x < kSlabLeft ? LEAKED_LEFT : LEAKED_RIGHT;
      tally.leak(fate == LEAKED_LEFT ? 0 : 1, n.weight);
      n.alive = 0;
    }
  } else {
    n.pos.x += distance * n.dir.x;
    n.pos.y += distance * n.dir.y;
    n.pos.z += distance * n.dir.z;
    float absorbed = n.weight * (1.0f - m.scatterRatio);
    tally.absorb(binOf(n.pos.x), absorbed);
    n.weight -= absorbed;
    n.dir = isotropic(rng);
    n.energy *= 1.0f - m.energyLoss * rng.uniform();
    if (n.energy < kMinEnergy) {
      tally.absorb(binOf(n.pos.x), n.weight);
      n.alive = 0;
      fate = ABSORBED_LOW_ENERGY;
    } else if (n.weight < kRouletteWeight) {
      // Russian roulette: one in two survives with twice the weight.
      if (rng.uniform() < 0.5f) {
        n.weight *= 2.0f;
      } else {
        n.alive = 0;
        fate = ROULETTE_KILLED;
      }
    }
  }
  n.draws = rng.counter();
  return fate;
}
