// Survey: device buffers and the nightly launches.
#include <cmath>

#include "check.h"
#include "survey.h"
#include "survey_kernels.cuh"

namespace {
constexpr int kThreads = 256;
}

Ephemeris ephemerisForNight(int night) {
  const double years = 10.0 + night / 365.25;
  const double phase = 2.0 * M_PI * years;
  return Ephemeris{float(years), float(std::sin(phase)), float(0.4 * std::cos(phase))};
}

Survey::Survey(const std::vector<Star>& catalogue, const TileGrid& grid, int detectionsPerNight)
    : n_(int(catalogue.size())), count_(detectionsPerNight), grid_(grid) {
  CHECK(cudaMalloc(&stars_, sizeof(Star) * n_));
  CHECK(cudaMalloc(&tileOf_, sizeof(int) * n_));
  CHECK(cudaMalloc(&detections_, sizeof(Detection) * count_));
  CHECK(cudaMalloc(&matches_, sizeof(Match) * count_));
  CHECK(cudaMalloc(&good_, sizeof(unsigned)));
  CHECK(cudaMemcpy(stars_, catalogue.data(), sizeof(Star) * n_, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(good_, 0, sizeof(unsigned)));
}

Survey::~Survey() {
  cudaFree(good_);
  cudaFree(matches_);
  cudaFree(detections_);
  cudaFree(tileOf_);
  cudaFree(stars_);
}

void Survey::runNight(int night, const Ephemeris& e, float goodChi2) {
  assignTiles<<<(n_ + kThreads - 1) / kThreads, kThreads>>>(stars_, n_, e.years, grid_, tileOf_);
  const int blocks = (count_ + kThreads - 1) / kThreads;
  observeNight<<<blocks, kThreads>>>(stars_, n_, night, e, detections_, count_);
  associate<<<blocks, kThreads>>>(detections_, count_, stars_, e, goodChi2, matches_, good_);
  CHECK(cudaGetLastError());
}

unsigned Survey::goodMatches() const {
  unsigned good = 0;
  CHECK(cudaMemcpy(&good, good_, sizeof(unsigned), cudaMemcpyDeviceToHost));
  return good;
}

void Survey::download(std::vector<int>& tileOf, std::vector<Match>& matches) const {
  tileOf.resize(n_);
  matches.resize(count_);
  CHECK(cudaMemcpy(tileOf.data(), tileOf_, sizeof(int) * n_, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(matches.data(), matches_, sizeof(Match) * count_, cudaMemcpyDeviceToHost));
}
