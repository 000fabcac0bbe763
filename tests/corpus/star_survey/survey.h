// The survey on the GPU: the catalogue stays on the device; each night tiles the stars, observes and associates.
#pragma once
#include <vector>

#include "catalog.h"

class Survey {
 public:
  Survey(const std::vector<Star>& catalogue, const TileGrid& grid, int detectionsPerNight);
  ~Survey();
  Survey(const Survey&) = delete;
  Survey& operator=(const Survey&) = delete;

  void runNight(int night, const Ephemeris& e, float goodChi2);

  unsigned goodMatches() const;
  void download(std::vector<int>& tileOf, std::vector<Match>& matches) const;

 private:
  int n_, count_;
  TileGrid grid_;
  Star* stars_ = nullptr;
  int* tileOf_ = nullptr;
  Detection* detections_ = nullptr;
  Match* matches_ = nullptr;
  unsigned* good_ = nullptr;
};

Ephemeris ephemerisForNight(int night);
