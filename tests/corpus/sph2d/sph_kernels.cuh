// SPH kernels, templated on the floating-point type of the particles.
#pragma once
#include "particle.h"

// Included by one unit only (sph_kernels.cu), which owns the constant parameters.
__constant__ SimParams c_params;

template <typename Real>
__global__ void hashParticles(const Particle<Real>* __restrict__ particles, int n, int* cellOf, int* cellCount) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int cx = cellCoord(float(particles[i].x), c_params.h, c_params.gridDim);
  const int cy = cellCoord(float(particles[i].y), c_params.h, c_params.gridDim);
  const int c = cy * c_params.gridDim + cx;
  cellOf[i] = c;
  atomicAdd(&cellCount[c], 1);
}

__global__ void scatterParticles(const int* cellOf, int n, const int* cellStart, int* cellFill, int* sorted) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cellOf[i];
  sorted[cellStart[c] + atomicAdd(&cellFill[c], 1)] = i;
}

template <typename Real>
__global__ void computeDensity(Particle<Real>* particles, int n, const int* cellStart, const int* cellCount,
                               const int* sorted) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Real xi = particles[i].x, yi = particles[i].y;
  const Real h = c_params.h;
  const int G = c_params.gridDim;
  const int cx = cellCoord(float(xi), c_params.h, G), cy = cellCoord(float(yi), c_params.h, G);
  Real rho = 0;
  for (int ny = max(cy - 1, 0); ny <= min(cy + 1, G - 1); ++ny)
    for (int nx = max(cx - 1, 0); nx <= min(cx + 1, G - 1); ++nx) {
      const int c = ny * G + nx;
      for (int k = cellStart[c]; k < cellStart[c] + cellCount[c]; ++k) {
        const int j = sorted[k];
        const Real dx = xi - particles[j].x, dy = yi - particles[j].y;
        rho += poly6(dx * dx + dy * dy, h);
      }
    }
  rho *= c_params.mass;
  particles[i].rho = rho;
  particles[i].p = c_params.stiffness * (rho - c_params.restDensity);
}

template <typename Real>
__global__ void computeForces(Particle<Real>* particles, int n, const int* cellStart, const int* cellCount,
                              const int* sorted) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Particle<Real> pi = particles[i];
  const Real h = c_params.h, m = c_params.mass;
  const int G = c_params.gridDim;
  const int cx = cellCoord(float(pi.x), c_params.h, G), cy = cellCoord(float(pi.y), c_params.h, G);
  Real fx = 0, fy = 0;
  for (int ny = max(cy - 1, 0); ny <= min(cy + 1, G - 1); ++ny)
    for (int nx = max(cx - 1, 0); nx <= min(cx + 1, G - 1); ++nx) {
      const int c = ny * G + nx;
      for (int k = cellStart[c]; k < cellStart[c] + cellCount[c]; ++k) {
        const int j = sorted[k];
        if (j == i) continue;
        const Real dx = pi.x - particles[j].x, dy = pi.y - particles[j].y;
        const Real r = sqrt(dx * dx + dy * dy);
        if (r >= h || r <= Real(1e-12)) continue;
        const Real rhoj = particles[j].rho;
        const Real pressure = -m * (pi.p + particles[j].p) / (Real(2) * rhoj) * spikyGrad(r, h);
        fx += pressure * dx / r;
        fy += pressure * dy / r;
        const Real visc = c_params.viscosity * m * viscLaplacian(r, h) / rhoj;
        fx += visc * (particles[j].vx - pi.vx);
        fy += visc * (particles[j].vy - pi.vy);
      }
    }
  particles[i].ax = fx / pi.rho;
  particles[i].ay = fy / pi.rho - c_params.gravity;
}

template <typename Real>
__device__ void reflect(Real& pos, Real& vel, Real lo, Real hi) {
  if (pos < lo) {
    pos = lo + (lo - pos);
    vel = -Real(0.5) * vel;
  }
  if (pos > hi) {
    pos = hi - (pos - hi);
    vel = -Real(0.5) * vel;
  }
}

template <typename Real>
__global__ void integrate(Particle<Real>* particles, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle<Real>& q = particles[i];
  const Real dt = c_params.dt;
  q.vx += dt * q.ax;
  q.vy += dt * q.ay;
  q.x += dt * q.vx;
  q.y += dt * q.vy;
  const Real lo = Real(1e-3) * c_params.boxSize, hi = c_params.boxSize - lo;
  reflect(q.x, q.vx, lo, hi);
  reflect(q.y, q.vy, lo, hi);
}
