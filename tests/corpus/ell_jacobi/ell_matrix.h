// A sparse matrix in ELLPACK form: every row padded to kEllWidth entries, stored row after row.
// Padding entries have col = -1 and value 0 and come after a row's real entries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

constexpr int kEllWidth = 10;  // the diagonal, six grid neighbours, up to three contacts

struct EllEntry {
  float value;
  int col;
};

class EllMatrix {
 public:
  explicit EllMatrix(int rows) : rows_(rows), entries_(static_cast<size_t>(rows) * kEllWidth, EllEntry{0.0f, -1}) {}

  int rows() const { return rows_; }
  size_t storedEntries() const { return entries_.size(); }
  size_t nonzeros() const;
  const EllEntry* data() const { return entries_.data(); }
  const EllEntry& at(int row, int k) const { return entries_[static_cast<size_t>(row) * kEllWidth + k]; }

  // Adds a_ij += value, in the row's first free slot or onto an entry of that column; false when the
  // row is full.
  bool add(int row, int col, float value);
  int length(int row) const;

  // The graph Laplacian of an nx * ny * nz grid of cells with a conductivity per cell (two
  // materials) and a few long-range "contact" couplings between cells, as a heat-conduction code
  // assembles it; rows are symmetric and diagonally dominant.
  static EllMatrix conductionLaplacian(int nx, int ny, int nz, uint32_t seed);

 private:
  int rows_;
  std::vector<EllEntry> entries_;
};

// y = A x on the CPU, summed in the order the GPU sums (entries in row order), in float.
void hostSpmv(const EllMatrix& a, const std::vector<float>& x, std::vector<float>& y);
