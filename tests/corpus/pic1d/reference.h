// The CPU version of the PIC step, used to check the GPU run.
#pragma once
#include <vector>

#include "particle.h"

struct FieldState {
  std::vector<double> rho;
  std::vector<float> efield;
};

void referenceStep(std::vector<Particle>& particles, const SimParams& params, FieldState& field);
double referenceKineticEnergy(const std::vector<Particle>& particles);
