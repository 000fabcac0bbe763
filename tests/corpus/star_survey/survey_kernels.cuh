// The nightly kernels: every star's tile of the pointing grid (four fields streamed), tonight's
// detections (one star gathered each) and their association (four candidate stars gathered each).
#pragma once
#include "catalog.h"

__global__ void assignTiles(const Star* stars, int n, float years, TileGrid grid, int* tileOf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = stars[i].xi + stars[i].pmXi * years;
  const float eta = stars[i].eta + stars[i].pmEta * years;
  tileOf[i] = grid.tileOf(xi, eta);
}

__global__ void observeNight(const Star* stars, int n, int night, Ephemeris e, Detection* detections, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int s = observedStar(i, night, n);
  detections[i] = observe(stars[s], s, n, i, night, e);
}

// The candidate with the smallest chi-square (the first of equals); counts the good matches.
__global__ void associate(const Detection* detections, int count, const Star* stars, Ephemeris e, float goodChi2,
                          Match* matches, unsigned* good) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const Detection d = detections[i];
  Match best = {-1, 0.f};
  for (int k = 0; k < kCandidates; ++k) {
    const int c = d.candidates[k];
    const Star s = stars[c];
    const float chi2 = matchChi2(d, s, e);
    if (best.star < 0 || chi2 < best.chi2) best = Match{c, chi2};
  }
  matches[i] = best;
  if (best.chi2 < goodChi2) atomicAdd(good, 1u);
}
