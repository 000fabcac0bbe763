// The bodies one rank owns, on its GPU, and the step that moves them against all bodies' sources.
#pragma once
#include "body.h"

#include <vector>

struct Energies {
  double kinetic = 0, potential = 0;
};

class Slab {
 public:
  Slab(int first, int count, int total);
  ~Slab();
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;

  int count() const { return count_; }
  // This rank's sources, into `sources` (count() of them), for the exchange.
  void packSources(std::vector<Source>& sources);
  // Forces from all bodies' sources (`all`, in global order), then a leapfrog step of `dt`.
  void step(const std::vector<Source>& all, float dt);
  // This rank's share of the energies (the potential counted once per pair over all ranks).
  Energies energies();
  // A position checksum for the output: the sum of x + 2y + 3z over this rank's bodies.
  double checksum();

 private:
  int first_, count_, total_;
  Body* bodies_ = nullptr;
  Source* sources_ = nullptr;  // device copy of all bodies' sources
  Source* packed_ = nullptr;   // this rank's sources, packed on the device
  double* partials_ = nullptr; // per-block sums
  int blocks_;
};
