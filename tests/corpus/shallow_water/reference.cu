// The CPU reference: the same finite-volume step, cell by cell.
#include "swe.h"

void reflectCpu(const Domain& d, Cell* cells) {
  for (int j = 1; j <= d.ny; ++j) {
    cells[d.index(0, j)] = cells[d.index(1, j)];
    cells[d.index(0, j)].hu = -cells[d.index(0, j)].hu;
    cells[d.index(d.nx + 1, j)] = cells[d.index(d.nx, j)];
    cells[d.index(d.nx + 1, j)].hu = -cells[d.index(d.nx + 1, j)].hu;
  }
  for (int i = 1; i <= d.nx; ++i) {
    cells[d.index(i, 0)] = cells[d.index(i, 1)];
    cells[d.index(i, 0)].hv = -cells[d.index(i, 0)].hv;
    cells[d.index(i, d.ny + 1)] = cells[d.index(i, d.ny)];
    cells[d.index(i, d.ny + 1)].hv = -cells[d.index(i, d.ny + 1)].hv;
  }
}

void stepCpu(const Domain& d, Cell* cells, Cell* next, Cell* fx, Cell* fy, float dt) {
  for (int j = 1; j <= d.ny; ++j)
    for (int i = 0; i <= d.nx; ++i) fx[d.index(i, j)] = rusanovFlux<0>(cells[d.index(i, j)], cells[d.index(i + 1, j)]);
  for (int j = 0; j <= d.ny; ++j)
    for (int i = 1; i <= d.nx; ++i) fy[d.index(i, j)] = rusanovFlux<1>(cells[d.index(i, j)], cells[d.index(i, j + 1)]);
  const float rx = dt / d.dx, ry = dt / d.dy;
  for (int j = 1; j <= d.ny; ++j)
    for (int i = 1; i <= d.nx; ++i) {
      int c = d.index(i, j);
      const Cell &e = fx[c], &w = fx[d.index(i - 1, j)], &n = fy[c], &s = fy[d.index(i, j - 1)];
      next[c].h = cells[c].h - rx * (e.h - w.h) - ry * (n.h - s.h);
      next[c].hu = cells[c].hu - rx * (e.hu - w.hu) - ry * (n.hu - s.hu);
      next[c].hv = cells[c].hv - rx * (e.hv - w.hv) - ry * (n.hv - s.hv);
    }
}
