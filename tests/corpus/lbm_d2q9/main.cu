// Lid-driven cavity flow with D2Q9 lattice Boltzmann; the GPU lattice is compared with a CPU run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lbm.h"

// One collide-and-stream step on the CPU, exactly as the kernels do it.
static void referenceStep(std::vector<Cell>& cur, std::vector<Cell>& next, const LbmParams& p) {
  for (Cell& c : cur) {
    if (c.flags != FLUID) continue;
    float rho = 0, mx = 0, my = 0;
    for (int q = 0; q < 9; ++q) {
      rho += c.f[q];
      mx += kEx[q] * c.f[q];
      my += kEy[q] * c.f[q];
    }
    const float ux = mx / rho, uy = my / rho;
    for (int q = 0; q < 9; ++q) c.f[q] += p.omega * (equilibrium(kWeight[q], kEx[q], kEy[q], rho, ux, uy) - c.f[q]);
    c.rho = rho;
    c.ux = ux;
    c.uy = uy;
  }
  for (int y = 0; y < p.ny; ++y)
    for (int x = 0; x < p.nx; ++x) {
      const int i = y * p.nx + x;
      next[i] = cur[i];
      if (cur[i].flags != FLUID) continue;
      for (int q = 0; q < 9; ++q) {
        const Cell& from = cur[(y - kEy[q]) * p.nx + (x - kEx[q])];
        if (from.flags == FLUID) {
          next[i].f[q] = from.f[q];
        } else {
          float f = cur[i].f[kOpposite[q]];
          if (from.flags == LID) f += 6.0f * kWeight[q] * kEx[q] * p.lidSpeed;
          next[i].f[q] = f;
        }
      }
    }
  cur.swap(next);
}

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::max(8, atoi(argv[1])) : 128;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 200;
  LbmParams p;
  p.nx = p.ny = side;
  p.lidSpeed = 0.1f;
  const float reynolds = 100.0f, viscosity = p.lidSpeed * (side - 2) / reynolds;
  p.omega = 1.0f / (3.0f * viscosity + 0.5f);

  std::vector<Cell> gpu(size_t(side) * side);
  initCavity(gpu.data(), p);
  std::vector<Cell> cpu = gpu, scratch = gpu;
  runLbm(gpu.data(), p, steps);
  for (int s = 0; s < steps; ++s) referenceStep(cpu, scratch, p);

  // Velocities within 1e-5 (the lid moves at 0.1), populations within 1e-5.
  double maxU = 0, maxF = 0, mass = 0, energy = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (gpu[i].flags != FLUID) continue;
    maxU = std::max(maxU, double(std::max(std::fabs(gpu[i].ux - cpu[i].ux), std::fabs(gpu[i].uy - cpu[i].uy))));
    for (int q = 0; q < 9; ++q) {
      maxF = std::max(maxF, double(std::fabs(gpu[i].f[q] - cpu[i].f[q])));
      mass += gpu[i].f[q];
    }
    energy += 0.5 * gpu[i].rho * (gpu[i].ux * gpu[i].ux + gpu[i].uy * gpu[i].uy);
  }
  const Cell& centre = gpu[(side / 2) * side + side / 2];
  printf("cavity %dx%d, Re %.0f, %d steps\n", side, side, reynolds, steps);
  printf("mass           %.3f\n", mass);
  printf("kinetic energy %.5e\n", energy);
  printf("centre u       %.5f %.5f\n", centre.ux, centre.uy);
  printf("max velocity error %.2e, max population error %.2e\n", maxU, maxF);
  const bool ok = std::isfinite(mass + energy) && maxU < 1e-5 && maxF < 1e-5;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
