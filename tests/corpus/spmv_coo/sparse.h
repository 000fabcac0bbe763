// Sparse matrix storage: coordinate entries (COO) and compressed rows of (column, value) pairs (CSR).
#pragma once
#include <vector>

struct Entry {
  int row;
  int col;
  float val;
};

struct CsrEntry {
  int col;
  float val;
};

struct CooMatrix {
  int rows = 0;
  std::vector<Entry> entries;  // sorted by row, then column; every row holds its diagonal
};

// A diagonally dominant matrix on a side x side grid: the 5-point Laplacian plus `extra` couplings
// per row to pseudo-random far rows, as left by a discretization with non-local terms.
CooMatrix makeMatrix(int side, int extra);
