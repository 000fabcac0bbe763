// 2D FDTD: a pulse from a point source scatters off a dielectric cylinder and a magnetic slab in
// a perfectly conducting box. Usage: fdtd_em [cells per side] [steps]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "fdtd.h"
#include "yee.h"

static void buildScene(std::vector<YeeCell>& grid, int n) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      YeeCell& c = grid[IDX(i, j, n)];
      c.Ex = c.Ey = c.Hz = 0.0f;
      float x = (float)i / n, y = (float)j / n;
      c.eps = (x - 0.62f) * (x - 0.62f) + (y - 0.5f) * (y - 0.5f) < 0.012f ? 4.0f : 1.0f;  // glass rod
      c.mu = (x > 0.2f && x < 0.26f && y > 0.15f && y < 0.45f) ? 2.5f : 1.0f;               // ferrite slab
    }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int steps = argc > 2 ? atoi(argv[2]) : 300;
  if (n < 32 || steps < 1) {
    fprintf(stderr, "usage: %s [cells per side >= 32] [steps >= 1]\n", argv[0]);
    return 2;
  }
  const float dt = 0.5f;  // Courant number 0.5 < 1/sqrt(2)
  Source src = {n / 3, n / 2, 0.05f, 30.0f, 10.0f};
  int probeI[MAX_PROBES] = {n / 2, 3 * n / 4, n / 8, n - 8, n / 3, 2 * n / 3};
  int probeJ[MAX_PROBES] = {n / 2, n / 2, n / 8, n - 8, 3 * n / 4, n / 4};
  const int probes = 6;

  std::vector<YeeCell> gpuGrid(n * n), cpuGrid(n * n);
  buildScene(gpuGrid, n);
  cpuGrid = gpuGrid;
  std::vector<float> gpuSeries(steps * probes), cpuSeries(steps * probes);
  double energy = 0.0;
  if (runFdtdGpu(gpuGrid.data(), n, n, dt, steps, src, probeI, probeJ, probes, gpuSeries.data(), &energy) != 0)
    return 2;
  fdtdCpu(cpuGrid.data(), n, n, dt, steps, src, probeI, probeJ, probes, cpuSeries.data());

  // The scheme is linear and stable: contracted multiply-adds on the GPU leave differences far
  // below 1e-4 of the largest field value.
  float peak = 0.0f, worst = 0.0f;
  double cpuEnergy = 0.0;
  for (int c = 0; c < n * n; ++c) {
    const YeeCell &g = gpuGrid[c], &r = cpuGrid[c];
    peak = std::max(peak, std::max(fabsf(r.Hz), std::max(fabsf(r.Ex), fabsf(r.Ey))));
    worst = std::max(worst, std::max(fabsf(g.Hz - r.Hz), std::max(fabsf(g.Ex - r.Ex), fabsf(g.Ey - r.Ey))));
    cpuEnergy += 0.5 * (r.eps * ((double)r.Ex * r.Ex + (double)r.Ey * r.Ey) + r.mu * (double)r.Hz * r.Hz);
  }
  for (int k = 0; k < steps * probes; ++k) worst = std::max(worst, fabsf(gpuSeries[k] - cpuSeries[k]));
  const float tolerance = 1e-4f * std::max(peak, 1e-6f);
  bool passed = worst <= tolerance && fabs(energy - cpuEnergy) <= 1e-4 * cpuEnergy;

  printf("grid %dx%d, %d steps, field energy %.6e (CPU %.6e)\n", n, n, steps, energy, cpuEnergy);
  for (int p = 0; p < probes; ++p) {
    float maxAbs = 0.0f;
    for (int s = 0; s < steps; ++s) maxAbs = std::max(maxAbs, fabsf(gpuSeries[s * probes + p]));
    printf("probe %d at (%d, %d): peak |Hz| %.6f, last %.6f\n", p, probeI[p], probeJ[p], maxAbs,
           gpuSeries[(steps - 1) * probes + p]);
  }
  printf("largest difference from the CPU %.3e (peak field %.4f)\n", worst, peak);
  printf("%s (fields and probes within 1e-4 of the peak field, energy within 1e-4 relative)\n",
         passed ? "CHECK PASSED" : "CHECK FAILED");
  return passed ? 0 : 1;
}
