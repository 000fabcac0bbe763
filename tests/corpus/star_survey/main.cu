// A survey field re-observed night after night: each night every catalogue star is placed on the
// pointing grid, and detections are drawn from the stars and associated with their candidate stars.
// The last night is checked on the CPU.
// usage: star_survey [tiles per side = 768] [detections per night = 45000] [nights = 4000]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"
#include "survey.h"

namespace {

constexpr float kGoodChi2 = 30.f;

class XorShift {
 public:
  explicit XorShift(unsigned long long seed) : s_(seed) {}
  unsigned long long next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  float uniform() { return float(next() >> 40) * (1.f / 16777216.f); }

 private:
  unsigned long long s_;
};

// Tile by tile, 4 to 12 stars each, so that neighbours in the catalogue are neighbours on the sky.
std::vector<Star> makeCatalogue(const TileGrid& grid) {
  XorShift rng(0x5eed5eedULL);
  std::vector<Star> stars;
  stars.reserve(size_t(grid.perSide) * grid.perSide * 8);
  for (int ty = 0; ty < grid.perSide; ++ty)
    for (int tx = 0; tx < grid.perSide; ++tx) {
      const int k = 4 + int(rng.next() % 9);
      for (int j = 0; j < k; ++j) {
        Star s;
        s.xi = grid.origin + (tx + rng.uniform()) * grid.size;
        s.eta = grid.origin + (ty + rng.uniform()) * grid.size;
        const float fast = rng.uniform() < 0.01f ? 20.f : 1.f;
        s.pmXi = fast * 0.01f * (rng.uniform() - 0.5f);
        s.pmEta = fast * 0.01f * (rng.uniform() - 0.5f);
        s.parallax = 0.0005f + 0.004f * rng.uniform() * rng.uniform();
        s.mag = 12.f + 9.f * std::sqrt(rng.uniform());
        s.color = 0.3f + 2.f * rng.uniform();
        const float f = rng.uniform();
        s.flags = f < 0.05f ? kVariable : (f < 0.15f ? kBinary : 0u);
        stars.push_back(s);
      }
    }
  return stars;
}

}  // namespace

int main(int argc, char** argv) {
  const int perSide = argc > 1 ? std::atoi(argv[1]) : 768;
  const int detections = argc > 2 ? std::atoi(argv[2]) : 45000;
  const int nights = argc > 3 ? std::atoi(argv[3]) : 4000;
  if (perSide < 4 || perSide > 4096 || detections < 16 || nights < 1) {
    std::fprintf(stderr, "usage: %s [tiles per side 4..4096] [detections per night >= 16] [nights >= 1]\n", argv[0]);
    return 2;
  }
  const TileGrid grid = {-3600.f, 7200.f / perSide, perSide};
  const std::vector<Star> catalogue = makeCatalogue(grid);
  const int n = int(catalogue.size());

  Survey survey(catalogue, grid, detections);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int night = 0; night < nights; ++night) survey.runNight(night, ephemerisForNight(night), kGoodChi2);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  const unsigned good = survey.goodMatches();
  std::vector<int> tileOf;
  std::vector<Match> matches;
  survey.download(tileOf, matches);

  // The last night on the CPU: every 61st star's tile (a star on a tile edge may fall either way)
  // and every 16th detection's association.
  const int last = nights - 1;
  const Ephemeris e = ephemerisForNight(last);
  int checkedTiles = 0, tileDiffs = 0;
  for (int i = 0; i < n; i += 61, ++checkedTiles) {
    const Star& s = catalogue[i];
    if (grid.tileOf(s.xi + s.pmXi * e.years, s.eta + s.pmEta * e.years) != tileOf[i]) ++tileDiffs;
  }
  int checkedMatches = 0, matchDiffs = 0;
  for (int i = 0; i < detections; i += 16, ++checkedMatches) {
    const int s = observedStar(i, last, n);
    const Detection d = observe(catalogue[s], s, n, i, last, e);
    Match best = {-1, 0.f};
    for (int k = 0; k < kCandidates; ++k) {
      const float chi2 = matchChi2(d, catalogue[d.candidates[k]], e);
      if (best.star < 0 || chi2 < best.chi2) best = Match{d.candidates[k], chi2};
    }
    if (matches[i].star != best.star || !(std::fabs(matches[i].chi2 - best.chi2) <= 1e-3f * best.chi2 + 1e-3f))
      ++matchDiffs;
  }

  std::vector<int> perTile(size_t(perSide) * perSide, 0);
  for (int t : tileOf) ++perTile[t];
  const int busiest = int(std::max_element(perTile.begin(), perTile.end()) - perTile.begin());
  int lastGood = 0;
  double chi2Sum = 0;
  for (const Match& m : matches)
    if (m.chi2 < kGoodChi2) {
      ++lastGood;
      chi2Sum += m.chi2;
    }
  std::printf("%d stars in %d x %d tiles, %d detections a night, %d nights\n", n, perSide, perSide, detections, nights);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("good associations: %u over all nights, %d on the last (mean chi2 %.5f)\n", good, lastGood,
              lastGood ? chi2Sum / lastGood : 0.0);
  std::printf("busiest tile %d with %d stars on the last night\n", busiest, perTile[busiest]);
  std::printf("against the CPU: %d of %d tiles differ, %d of %d associations differ\n", tileDiffs, checkedTiles,
              matchDiffs, checkedMatches);
  const bool passed = matchDiffs == 0 && tileDiffs <= 1 + checkedTiles / 10000 && lastGood > detections / 2;
  std::printf("%s (associations equal, chi2 within a relative 1e-3; tiles equal but for stars on an edge)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  return passed ? 0 : 1;
}
