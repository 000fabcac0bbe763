#include <algorithm>
#include <cmath>

#include "sparse.h"

static unsigned int mix(unsigned int x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

CooMatrix makeMatrix(int side, int extra) {
  CooMatrix m;
  m.rows = side * side;
  m.entries.reserve(static_cast<size_t>(m.rows) * (5 + extra));
  std::vector<Entry> row;
  for (int i = 0; i < m.rows; ++i) {
    int x = i % side, y = i / side;
    row.clear();
    if (y > 0) row.push_back({i, i - side, -1.0f});
    if (x > 0) row.push_back({i, i - 1, -1.0f});
    if (x + 1 < side) row.push_back({i, i + 1, -1.0f});
    if (y + 1 < side) row.push_back({i, i + side, -1.0f});
    for (int k = 0; k < extra; ++k) {
      int col = static_cast<int>(mix(i * 31u + k * 977u + 1u) % static_cast<unsigned int>(m.rows));
      bool taken = col == i || std::any_of(row.begin(), row.end(), [&](const Entry& e) { return e.col == col; });
      if (!taken) row.push_back({i, col, -0.25f * (1 + mix(col + k) % 4)});
    }
    float offDiagonal = 0.0f;
    for (const Entry& e : row) offDiagonal += std::fabs(e.val);
    row.push_back({i, i, offDiagonal + 1.0f});
    std::sort(row.begin(), row.end(), [](const Entry& a, const Entry& b) { return a.col < b.col; });
    m.entries.insert(m.entries.end(), row.begin(), row.end());
  }
  return m;
}
