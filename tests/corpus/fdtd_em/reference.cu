// The CPU reference: the same leapfrog, loop by loop.
#include "yee.h"

void fdtdCpu(YeeCell* grid, int nx, int ny, float dt, int steps, const Source& src, const int* probeI,
             const int* probeJ, int probes, float* series) {
  for (int n = 0; n < steps; ++n) {
    for (int j = 0; j < ny - 1; ++j)
      for (int i = 0; i < nx - 1; ++i) {
        int c = IDX(i, j, nx);
        float curlE = (grid[IDX(i + 1, j, nx)].Ey - grid[c].Ey) - (grid[IDX(i, j + 1, nx)].Ex - grid[c].Ex);
        grid[c].Hz -= dt / grid[c].mu * curlE;
      }
    grid[IDX(src.i, src.j, nx)].Hz += sourceValue(src, (n + 0.5f) * dt);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        int c = IDX(i, j, nx);
        float k = dt / grid[c].eps;
        if (j > 0 && j < ny - 1 && i < nx - 1) grid[c].Ex += k * (grid[c].Hz - grid[IDX(i, j - 1, nx)].Hz);
        if (i > 0 && i < nx - 1 && j < ny - 1) grid[c].Ey -= k * (grid[c].Hz - grid[IDX(i - 1, j, nx)].Hz);
      }
    for (int p = 0; p < probes; ++p) series[n * probes + p] = grid[IDX(probeI[p], probeJ[p], nx)].Hz;
  }
}
