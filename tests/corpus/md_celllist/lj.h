// Lennard-Jones pair interaction and the cell geometry, shared by the kernels and the CPU reference.
#pragma once
#include "atom.h"

constexpr int kTypes = 2;

struct MixtureTable {
  float epsilon[kTypes][kTypes];
  float sigma2[kTypes][kTypes];
  float mass[kTypes];
  float cutoff2;
};

struct Box {
  float length;     // periodic box edge
  int cellsPerDim;  // cells along each axis (at least 3)
  float cellSize;
};

// Returns |F|/r for a pair at squared distance r2 and adds the pair's energy (shifted to zero at the cut-off).
template <typename Real>
MD_HD inline Real ljForceOverR(Real r2, Real sigma2, Real epsilon, Real cutoff2, Real& energy) {
  Real s2 = sigma2 / r2;
  Real s6 = s2 * s2 * s2;
  Real c2 = sigma2 / cutoff2;
  Real c6 = c2 * c2 * c2;
  energy += Real(4) * epsilon * (s6 * s6 - s6 - (c6 * c6 - c6));
  return Real(24) * epsilon * (Real(2) * s6 * s6 - s6) / r2;
}

MD_HD inline float minimumImage(float d, float length) {
  if (d > 0.5f * length) return d - length;
  if (d < -0.5f * length) return d + length;
  return d;
}

MD_HD inline int cellCoord(float x, const Box& box) {
  int c = static_cast<int>(x / box.cellSize);
  return c < 0 ? 0 : (c >= box.cellsPerDim ? box.cellsPerDim - 1 : c);
}

MD_HD inline int cellIndex(int cx, int cy, int cz, int n) {
  cx = (cx + n) % n;
  cy = (cy + n) % n;
  cz = (cz + n) % n;
  return (cz * n + cy) * n + cx;
}
