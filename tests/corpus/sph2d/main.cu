// 2D dam break with smoothed particle hydrodynamics: a block of fluid falls in a closed box.
// The GPU run is checked against a CPU implementation of the same scheme.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sph.h"

typedef Particle<real_t> P;

static unsigned int lcg(unsigned int& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

static void initDamBreak(std::vector<P>& ps, int n, const SimParams& prm, float spacing) {
  const int side = int(std::ceil(std::sqrt(double(n))));
  unsigned int seed = 12345u;
  for (int i = 0; i < n; ++i) {
    P& q = ps[i];
    const float jitter = 0.05f * spacing;
    q.x = prm.boxSize * 0.02f + (i % side + 0.5f) * spacing + jitter * (lcg(seed) / float(1 << 24) - 0.5f);
    q.y = prm.boxSize * 0.02f + (i / side + 0.5f) * spacing + jitter * (lcg(seed) / float(1 << 24) - 0.5f);
    q.vx = q.vy = q.ax = q.ay = 0;
    q.rho = prm.restDensity;
    q.p = 0;
  }
}

// The same scheme on the CPU, with cell lists in index order.
static void cpuSteps(std::vector<P>& ps, const SimParams& prm, int steps) {
  const int n = int(ps.size()), G = prm.gridDim;
  std::vector<int> start(G * G + 1), list(n), cell(n);
  for (int s = 0; s < steps; ++s) {
    std::fill(start.begin(), start.end(), 0);
    for (int i = 0; i < n; ++i) {
      cell[i] = cellCoord(float(ps[i].y), prm.h, G) * G + cellCoord(float(ps[i].x), prm.h, G);
      ++start[cell[i] + 1];
    }
    for (int c = 0; c < G * G; ++c) start[c + 1] += start[c];
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int i = 0; i < n; ++i) list[fill[cell[i]]++] = i;

    auto forNeighbours = [&](int i, auto&& body) {
      const int cx = cell[i] % G, cy = cell[i] / G;
      for (int ny = std::max(cy - 1, 0); ny <= std::min(cy + 1, G - 1); ++ny)
        for (int nx = std::max(cx - 1, 0); nx <= std::min(cx + 1, G - 1); ++nx)
          for (int k = start[ny * G + nx]; k < start[ny * G + nx + 1]; ++k) body(list[k]);
    };
    for (int i = 0; i < n; ++i) {
      real_t rho = 0;
      forNeighbours(i, [&](int j) {
        const real_t dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
        rho += poly6<real_t>(dx * dx + dy * dy, prm.h);
      });
      ps[i].rho = rho * prm.mass;
      ps[i].p = prm.stiffness * (ps[i].rho - prm.restDensity);
    }
    for (int i = 0; i < n; ++i) {
      real_t fx = 0, fy = 0;
      forNeighbours(i, [&](int j) {
        if (j == i) return;
        const real_t dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
        const real_t r = std::sqrt(dx * dx + dy * dy);
        if (r >= prm.h || r <= real_t(1e-12)) return;
        const real_t pressure = -prm.mass * (ps[i].p + ps[j].p) / (real_t(2) * ps[j].rho) * spikyGrad<real_t>(r, prm.h);
        fx += pressure * dx / r;
        fy += pressure * dy / r;
        const real_t visc = prm.viscosity * prm.mass * viscLaplacian<real_t>(r, prm.h) / ps[j].rho;
        fx += visc * (ps[j].vx - ps[i].vx);
        fy += visc * (ps[j].vy - ps[i].vy);
      });
      ps[i].ax = fx / ps[i].rho;
      ps[i].ay = fy / ps[i].rho - prm.gravity;
    }
    const real_t lo = real_t(1e-3) * prm.boxSize, hi = prm.boxSize - lo;
    for (P& q : ps) {
      q.vx += prm.dt * q.ax;
      q.vy += prm.dt * q.ay;
      q.x += prm.dt * q.vx;
      q.y += prm.dt * q.vy;
      if (q.x < lo) {
        q.x = lo + (lo - q.x);
        q.vx = -real_t(0.5) * q.vx;
      }
      if (q.x > hi) {
        q.x = hi - (q.x - hi);
        q.vx = -real_t(0.5) * q.vx;
      }
      if (q.y < lo) {
        q.y = lo + (lo - q.y);
        q.vy = -real_t(0.5) * q.vy;
      }
      if (q.y > hi) {
        q.y = hi - (q.y - hi);
        q.vy = -real_t(0.5) * q.vy;
      }
    }
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(16, atoi(argv[1])) : 32768;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 20;

  // The fluid block fills half of the box side; the smoothing length is two particle spacings.
  SimParams prm;
  prm.boxSize = 1.0f;
  const float spacing = 0.5f * prm.boxSize / std::ceil(std::sqrt(float(n)));
  prm.h = 2.0f * spacing;
  prm.gridDim = int(std::ceil(prm.boxSize / prm.h));
  prm.restDensity = 1000.0f;
  prm.mass = prm.restDensity * spacing * spacing;
  prm.stiffness = 200.0f;
  prm.viscosity = 0.01f;
  prm.gravity = 9.81f;
  prm.dt = 0.1f * prm.h / std::sqrt(prm.stiffness);

  std::vector<P> host(n);
  initDamBreak(host, n, prm, spacing);
  std::vector<P> reference = host;

  P* d_particles;
  cudaMalloc(&d_particles, n * sizeof(P));
  cudaMemcpy(d_particles, host.data(), n * sizeof(P), cudaMemcpyHostToDevice);
  DeviceGrid grid;
  allocGrid(grid, n, prm.gridDim * prm.gridDim);
  uploadParams(prm);
  runSteps(d_particles, n, prm, grid, steps);
  cudaMemcpy(host.data(), d_particles, n * sizeof(P), cudaMemcpyDeviceToHost);
  freeGrid(grid);
  cudaFree(d_particles);

  cpuSteps(reference, prm, steps);

  // Densities within 1e-3 relative, positions within 1e-5 of the box side.
  double rhoSum = 0, ySum = 0, kinetic = 0, maxRho = 0, maxPos = 0;
  for (int i = 0; i < n; ++i) {
    rhoSum += host[i].rho;
    ySum += host[i].y;
    kinetic += 0.5 * prm.mass * (host[i].vx * host[i].vx + host[i].vy * host[i].vy);
    maxRho = std::max(maxRho, std::fabs(double(host[i].rho - reference[i].rho)) / reference[i].rho);
    maxPos = std::max(maxPos,
                      double(std::max(std::fabs(host[i].x - reference[i].x), std::fabs(host[i].y - reference[i].y))));
  }
  printf("particles %d, steps %d, grid %dx%d\n", n, steps, prm.gridDim, prm.gridDim);
  printf("mean density   %.2f\n", rhoSum / n);
  printf("mean height    %.6f\n", ySum / n);
  printf("kinetic energy %.4e\n", kinetic);
  printf("max rel density error %.2e, max position error %.2e\n", maxRho, maxPos);
  const bool ok = std::isfinite(rhoSum + ySum + kinetic) && maxRho < 1e-3 && maxPos < 1e-5 * prm.boxSize;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
