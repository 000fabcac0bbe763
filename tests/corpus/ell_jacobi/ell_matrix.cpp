#include "ell_matrix.h"

#include <cmath>

size_t EllMatrix::nonzeros() const {
  size_t n = 0;
  for (const EllEntry& e : entries_) n += e.col >= 0;
  return n;
}

int EllMatrix::length(int row) const {
  int k = 0;
  while (k < kEllWidth && at(row, k).col >= 0) ++k;
  return k;
}

bool EllMatrix::add(int row, int col, float value) {
  EllEntry* r = &entries_[static_cast<size_t>(row) * kEllWidth];
  for (int k = 0; k < kEllWidth; ++k) {
    if (r[k].col == col) {
      r[k].value += value;
      return true;
    }
    if (r[k].col < 0) {
      r[k] = EllEntry{value, col};
      return true;
    }
  }
  return false;
}

namespace {

uint32_t hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Couples cells i and j with conductance g: both diagonals grow, both off-diagonals shrink. Only
// when both rows have room (the diagonal is always there already).
void couple(EllMatrix& m, int i, int j, float g) {
  if (m.length(i) >= kEllWidth || m.length(j) >= kEllWidth) return;
  m.add(i, j, -g);
  m.add(j, i, -g);
  m.add(i, i, g);
  m.add(j, j, g);
}

}  // namespace

EllMatrix EllMatrix::conductionLaplacian(int nx, int ny, int nz, uint32_t seed) {
  const int rows = nx * ny * nz;
  EllMatrix m(rows);
  auto cell = [&](int x, int y, int z) { return (z * ny + y) * nx + x; };
  std::vector<float> conductivity(rows);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const float dx = x - 0.5f * nx, dy = y - 0.5f * ny;
        const bool inclusion = dx * dx + dy * dy < 0.1f * nx * ny;  // a copper rod along z
        conductivity[cell(x, y, z)] = inclusion ? 8.0f : 1.0f + 0.25f * std::sin(0.1f * z);
      }
  for (int i = 0; i < rows; ++i) m.add(i, i, 0.0f);  // the diagonal first in every row
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int i = cell(x, y, z);
        auto face = [&](int j) {
          const float g = 2.0f * conductivity[i] * conductivity[j] / (conductivity[i] + conductivity[j]);
          couple(m, i, j, g);
        };
        if (x + 1 < nx) face(cell(x + 1, y, z));
        if (y + 1 < ny) face(cell(x, y + 1, z));
        if (z + 1 < nz) face(cell(x, y, z + 1));
      }
  // Contacts: heat pipes joining a few cells to cells far away.
  for (int i = 0; i < rows; ++i) {
    const uint32_t h = hash(static_cast<uint32_t>(i) ^ seed);
    if (h % 5 != 0) continue;
    const int j = static_cast<int>(hash(h) % static_cast<uint32_t>(rows));
    if (j != i) couple(m, i, j, 0.5f);
  }
  return m;
}

void hostSpmv(const EllMatrix& a, const std::vector<float>& x, std::vector<float>& y) {
  y.assign(a.rows(), 0.0f);
  for (int row = 0; row < a.rows(); ++row) {
    float sum = 0.0f;
    for (int k = 0; k < kEllWidth; ++k) {
      const EllEntry& e = a.at(row, k);
      if (e.col < 0) break;
      sum += e.value * x[e.col];
    }
    y[row] = sum;
  }
}
