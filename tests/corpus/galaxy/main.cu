// Two disc galaxies collide under all-pairs gravity; the bodies live in managed memory. The check
// compares sampled accelerations with a direct sum on the CPU (in double) at the start and the end,
// and watches momentum and energy over the run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "simulation.h"

// Largest difference between GPU and CPU accelerations over every `stride`-th body, relative to the
// sum of the magnitudes of its pair terms (the net pull nearly cancels at a galaxy's centre).
static double sampledAccelerationError(const Body* bodies, int n, const SimConfig& cfg, int stride) {
  double worst = 0;
  for (int i = 0; i < n; i += stride) {
    double ax = 0, ay = 0, az = 0, magnitude = 0;
    for (int j = 0; j < n; ++j) {
      const double dx = double(bodies[j].pos.x) - bodies[i].pos.x, dy = double(bodies[j].pos.y) - bodies[i].pos.y,
                   dz = double(bodies[j].pos.z) - bodies[i].pos.z;
      const double r2 = dx * dx + dy * dy + dz * dz + double(cfg.softening) * cfg.softening;
      const double s = bodies[j].mass / (r2 * std::sqrt(r2));
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
      magnitude += s * std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    ax *= cfg.G;
    ay *= cfg.G;
    az *= cfg.G;
    const double ex = bodies[i].acc.x - ax, ey = bodies[i].acc.y - ay, ez = bodies[i].acc.z - az;
    worst = std::max(worst, std::sqrt(ex * ex + ey * ey + ez * ez) / std::max(cfg.G * magnitude, 1e-12));
  }
  return worst;
}

static void momentum(const Body* bodies, int n, double p[3], double* scale) {
  p[0] = p[1] = p[2] = *scale = 0;
  for (int i = 0; i < n; ++i) {
    p[0] += double(bodies[i].mass) * bodies[i].vel.x;
    p[1] += double(bodies[i].mass) * bodies[i].vel.y;
    p[2] += double(bodies[i].mass) * bodies[i].vel.z;
    *scale += bodies[i].mass *
              std::sqrt(double(bodies[i].vel.x) * bodies[i].vel.x + double(bodies[i].vel.y) * bodies[i].vel.y +
                        double(bodies[i].vel.z) * bodies[i].vel.z);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(512, atoi(argv[1])) : 16384;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 20;
  const SimConfig cfg = {1e-3f, 0.05f, 1.0f};
  const int stride = std::max(1, n / 256);

  Body* bodies;
  if (cudaMallocManaged(&bodies, size_t(n) * sizeof(Body)) != cudaSuccess) {
    fprintf(stderr, "galaxy: cannot allocate %d bodies\n", n);
    return 1;
  }
  makeGalaxies(bodies, n, 4242u);
  double p0[3], scale0, k0, u0;
  momentum(bodies, n, p0, &scale0);

  computeForces(bodies, n, cfg);
  const double startErr = sampledAccelerationError(bodies, n, cfg, stride);
  energies(bodies, n, cfg, &k0, &u0);
  advance(bodies, n, cfg, steps);
  const double endErr = sampledAccelerationError(bodies, n, cfg, stride);
  double p1[3], scale1, k1, u1;
  momentum(bodies, n, p1, &scale1);
  energies(bodies, n, cfg, &k1, &u1);

  // Accelerations within 1e-4 of the pull's magnitude; momentum change under 1e-4 of sum(m |v|);
  // energy drift under 1e-3.
  const double dp = std::sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                              (p1[2] - p0[2]) * (p1[2] - p0[2])) /
                    scale0;
  const double drift = std::fabs((k1 + u1) - (k0 + u0)) / std::fabs(k0 + u0);
  printf("bodies %d, %d steps of %.0e\n", n, steps, cfg.dt);
  printf("energy  %.5f -> %.5f (kinetic %.5f, potential %.5f)\n", k0 + u0, k1 + u1, k1, u1);
  printf("galaxy 0 body 0 at %.4f %.4f %.4f\n", bodies[0].pos.x, bodies[0].pos.y, bodies[0].pos.z);
  printf("acceleration error start %.2e end %.2e, momentum change %.2e, energy drift %.2e\n", startErr, endErr, dp,
         drift);
  cudaFree(bodies);
  const bool ok = startErr < 1e-4 && endErr < 1e-4 && dp < 1e-4 && drift < 1e-3;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
