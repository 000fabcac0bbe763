// Host reference of deposit, field solve and push, written as the same arithmetic as the kernels
// (float particle data, 64-bit fixed-point charge, double field integration).
#include "reference.h"

#include <cmath>

static void deposit(const std::vector<Particle>& particles, const SimParams& params, std::vector<long long>& fixed) {
  fixed.assign(params.ncells, 0);
  for (const Particle& p : particles) {
    float s = p.x / params.dx;
    int left = cellOf(p.x, params.dx, params.ncells);
    int right = left + 1 == params.ncells ? 0 : left + 1;
    float wr = s - static_cast<float>(left);
    float wl = 1.0f - wr;
    fixed[left] += std::llrint(static_cast<double>(p.q * wl) * kChargeScale);
    fixed[right] += std::llrint(static_cast<double>(p.q * wr) * kChargeScale);
  }
}

static void solve(const std::vector<long long>& fixed, const SimParams& params, FieldState& field) {
  const int ng = params.ncells;
  field.rho.assign(ng, 0.0);
  field.efield.assign(ng, 0.0f);
  std::vector<double> integrated(ng);
  double running = 0.0, sum = 0.0;
  for (int j = 0; j < ng; ++j) {
    field.rho[j] = static_cast<double>(fixed[j]) / kChargeScale / params.dx + params.rhoBack;
    running += field.rho[j] * params.dx;
    integrated[j] = running;
    sum += running;
  }
  double mean = sum / ng;
  for (int j = 0; j < ng; ++j) field.efield[j] = static_cast<float>(integrated[j] - mean);
}

static void push(std::vector<Particle>& particles, const SimParams& params, const std::vector<float>& efield) {
  for (Particle& p : particles) {
    float s = p.x / params.dx;
    int left = cellOf(p.x, params.dx, params.ncells);
    int right = left + 1 == params.ncells ? 0 : left + 1;
    float wr = s - static_cast<float>(left);
    float e = (1.0f - wr) * efield[left] + wr * efield[right];
    p.v = p.v + p.q / p.m * e * params.dt;
    p.x = wrapPosition(p.x + p.v * params.dt, params.length);
  }
}

void referenceStep(std::vector<Particle>& particles, const SimParams& params, FieldState& field) {
  std::vector<long long> fixed;
  deposit(particles, params, fixed);
  solve(fixed, params, field);
  push(particles, params, field.efield);
}

double referenceKineticEnergy(const std::vector<Particle>& particles) {
  double ke = 0.0;
  for (const Particle& p : particles) ke += 0.5 * p.m * p.v * p.v;
  return ke;
}
