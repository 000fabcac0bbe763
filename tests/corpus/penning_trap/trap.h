// The simulation as the host sees it: a cloud of ions in a trap, advanced and measured on the GPU.
#pragma once
#include <vector>

#include "particles.h"

struct CloudStats {
  double kinetic, radial, axial;  // per unit weight
  double escaped;                 // fraction of the weight
  double weight;                  // total weight
};

class IonCloud {
 public:
  // n ions drawn on the device (initialIon, initialMomentum).
  explicit IonCloud(int n);
  ~IonCloud();
  IonCloud(const IonCloud&) = delete;
  IonCloud& operator=(const IonCloud&) = delete;

  // Advances every ion by one Boris step of dt from time t.
  void step(const TrapField& field, float t, float dt);
  CloudStats stats(float wallRadius);
  void download(std::vector<Ion>& ions, std::vector<Momentum>& momenta) const;
  int size() const { return n_; }

 private:
  int n_;
  int blocks_;
  Ion* ions_ = nullptr;
  Momentum* momenta_ = nullptr;
  Diagnostics* partial_ = nullptr;
  std::vector<Diagnostics> hostPartial_;
};
