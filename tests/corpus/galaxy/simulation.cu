// Setting up the galaxies and driving the kernels.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "nbody_kernels.cuh"
#include "simulation.h"

static void check(cudaError_t e, const char* where) {
  if (e != cudaSuccess) {
    fprintf(stderr, "galaxy: %s: %s\n", where, cudaGetErrorString(e));
    exit(EXIT_FAILURE);
  }
}

static float uniform(unsigned int& s) {
  s = 1664525u * s + 1013904223u;
  return ((s >> 8) + 0.5f) / 16777216.0f;
}

void makeGalaxies(Body* bodies, int n, unsigned int seed) {
  const float3 centre[2] = {make_float3(-1.5f, -0.3f, 0.0f), make_float3(1.5f, 0.3f, 0.0f)};
  const float3 drift[2] = {make_float3(0.3f, 0.0f, 0.0f), make_float3(-0.3f, 0.0f, 0.0f)};
  const float galaxyMass = 1.0f, scale = 0.5f;
  for (int i = 0; i < n; ++i) {
    Body& b = bodies[i];
    b.galaxy = i % 2;
    b.mass = galaxyMass / ((n + 1 - b.galaxy) / 2);
    // An exponential-ish disc: radius from the inverse of a cumulative profile, in the galaxy's plane.
    const float r = -scale * logf(1.0f - 0.95f * uniform(seed));
    const float phi = 6.2831853f * uniform(seed);
    const float height = 0.05f * scale * (uniform(seed) - 0.5f);
    const float tilt = b.galaxy == 0 ? 0.0f : 0.6f;
    const float x = r * cosf(phi), y = r * sinf(phi);
    b.pos = make_float3(centre[b.galaxy].x + x, centre[b.galaxy].y + y * cosf(tilt) - height * sinf(tilt),
                        centre[b.galaxy].z + y * sinf(tilt) + height * cosf(tilt));
    // Circular speed of the mass inside r (the disc's own profile), about the galaxy's centre.
    const float inside = galaxyMass * (1.0f - expf(-r / scale) * (1.0f + r / scale));
    const float speed = sqrtf(inside / fmaxf(r, 1e-3f));
    const float vx = -speed * sinf(phi), vy = speed * cosf(phi);
    b.vel =
        make_float3(drift[b.galaxy].x + vx, drift[b.galaxy].y + vy * cosf(tilt), drift[b.galaxy].z + vy * sinf(tilt));
    b.acc = make_float3(0, 0, 0);
  }
}

static void uploadConstants(const SimConfig& cfg) {
  const float soft2 = cfg.softening * cfg.softening;
  check(cudaMemcpyToSymbol(c_softening2, &soft2, sizeof(float)), "c_softening2");
  check(cudaMemcpyToSymbol(c_G, &cfg.G, sizeof(float)), "c_G");
}

void computeForces(Body* bodies, int n, const SimConfig& cfg) {
  uploadConstants(cfg);
  computeAccelerations<<<(n + TILE - 1) / TILE, TILE>>>(bodies, n);
  check(cudaDeviceSynchronize(), "computeAccelerations");
}

void advance(Body* bodies, int n, const SimConfig& cfg, int steps) {
  uploadConstants(cfg);
  const int blocks = (n + TILE - 1) / TILE;
  for (int s = 0; s < steps; ++s) {
    kickDrift<<<blocks, TILE>>>(bodies, n, cfg.dt);
    computeAccelerations<<<blocks, TILE>>>(bodies, n);
    kick<<<blocks, TILE>>>(bodies, n, cfg.dt);
  }
  check(cudaDeviceSynchronize(), "advance");
}

void energies(const Body* bodies, int n, const SimConfig& cfg, double* kinetic, double* potential) {
  uploadConstants(cfg);
  float *d_kinetic, *d_potential;
  check(cudaMalloc(&d_kinetic, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_potential, n * sizeof(float)), "cudaMalloc");
  bodyEnergy<<<(n + TILE - 1) / TILE, TILE>>>(bodies, n, d_kinetic, d_potential);
  std::vector<float> k(n), p(n);
  check(cudaMemcpy(k.data(), d_kinetic, n * sizeof(float), cudaMemcpyDeviceToHost), "energy");
  check(cudaMemcpy(p.data(), d_potential, n * sizeof(float), cudaMemcpyDeviceToHost), "energy");
  *kinetic = *potential = 0;
  for (int i = 0; i < n; ++i) {
    *kinetic += k[i];
    *potential += p[i];
  }
  cudaFree(d_kinetic);
  cudaFree(d_potential);
}
