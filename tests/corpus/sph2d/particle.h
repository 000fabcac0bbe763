// Particle state and the SPH smoothing kernels, shared by the GPU solver and the CPU reference.
#pragma once
#include <cmath>

#if !defined(__CUDACC__) && !defined(__host__)  // a host compiler without the CUDA headers
#define __host__
#define __device__
#endif

#ifdef SPH_DOUBLE
typedef double real_t;
#else
typedef float real_t;
#endif

template <typename Real>
struct Particle {
  Real x, y;    // position
  Real vx, vy;  // velocity
  Real ax, ay;  // acceleration from the last force pass
  Real rho;     // density
  Real p;       // pressure
};

struct SimParams {
  float h;     // smoothing length, also the grid cell size
  float mass;  // particle mass
  float restDensity;
  float stiffness;  // equation of state: p = k (rho - rho0)
  float viscosity;
  float gravity;
  float dt;
  float boxSize;  // the domain is [0, boxSize)^2
  int gridDim;    // cells per side
};

// Normalised 2D kernels (Mueller et al. 2003).
template <typename Real>
__host__ __device__ inline Real poly6(Real r2, Real h) {
  const Real h2 = h * h;
  if (r2 >= h2) return Real(0);
  const Real d = h2 - r2;
  return Real(4.0 / M_PI) / (h2 * h2 * h2 * h2) * d * d * d;
}

template <typename Real>
__host__ __device__ inline Real spikyGrad(Real r, Real h) {
  if (r >= h || r <= Real(0)) return Real(0);
  const Real d = h - r;
  return Real(-30.0 / M_PI) / (h * h * h * h * h) * d * d;
}

template <typename Real>
__host__ __device__ inline Real viscLaplacian(Real r, Real h) {
  if (r >= h) return Real(0);
  return Real(40.0 / M_PI) / (h * h * h * h * h) * (h - r);
}

__host__ __device__ inline int cellCoord(float v, float h, int gridDim) {
  int c = int(v / h);
  return c < 0 ? 0 : (c >= gridDim ? gridDim - 1 : c);
}
