// The three stages of one PIC step (deposit, field solve, push) plus a diagnostic reduction.
#pragma once
#include "particle.h"

__constant__ SimParams c_params;

constexpr int kSolveThreads = 1024;
constexpr int kMaxCells = 4096;  // the field solve keeps the whole grid in shared memory

// Linear (cloud-in-cell) weighting of one particle onto its two nearest nodes.
__device__ inline void depositOne(const Particle& p, unsigned long long* rhoFixed) {
  float s = p.x / c_params.dx;
  int left = cellOf(p.x, c_params.dx, c_params.ncells);
  int right = left + 1 == c_params.ncells ? 0 : left + 1;
  float wr = s - static_cast<float>(left);
  float wl = 1.0f - wr;
  long long ql = llrint(static_cast<double>(p.q * wl) * kChargeScale);
  long long qr = llrint(static_cast<double>(p.q * wr) * kChargeScale);
  atomicAdd(&rhoFixed[left], static_cast<unsigned long long>(ql));
  atomicAdd(&rhoFixed[right], static_cast<unsigned long long>(qr));
}

__global__ void depositCharge(const Particle* particles, int n, unsigned long long* rhoFixed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    depositOne(particles[i], rhoFixed);
}

// Gauss's law in 1D, dE/dx = rho: E is the running sum of rho, made mean-free for a periodic box.
// One block scans the grid in shared memory, kSolveThreads nodes at a time.
__global__ void solveField(const unsigned long long* rhoFixed, double* rho, float* efield) {
  __shared__ double scan[kSolveThreads];
  __shared__ double field[kMaxCells];
  __shared__ double carry;
  __shared__ double mean;
  const int ng = c_params.ncells;
  if (threadIdx.x == 0) carry = 0.0;
  __syncthreads();
  for (int base = 0; base < ng; base += kSolveThreads) {
    int j = base + threadIdx.x;
    double r = 0.0;
    if (j < ng) {
      r = static_cast<double>(static_cast<long long>(rhoFixed[j])) / kChargeScale / c_params.dx + c_params.rhoBack;
      rho[j] = r;
    }
    scan[threadIdx.x] = r * c_params.dx;
    __syncthreads();
    for (int offset = 1; offset < kSolveThreads; offset *= 2) {
      double add = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0.0;
      __syncthreads();
      scan[threadIdx.x] += add;
      __syncthreads();
    }
    if (j < ng) field[j] = carry + scan[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == kSolveThreads - 1) carry += scan[threadIdx.x];
    __syncthreads();
  }
  // A serial sum in node order keeps the mean, and so the field, reproducible.
  if (threadIdx.x == 0) {
    double sum = 0.0;
    for (int j = 0; j < ng; ++j) sum += field[j];
    mean = sum / ng;
  }
  __syncthreads();
  for (int j = threadIdx.x; j < ng; j += blockDim.x) efield[j] = static_cast<float>(field[j] - mean);
}

template <typename Real>
__device__ inline Real gatherField(const float* efield, Real x) {
  Real s = x / static_cast<Real>(c_params.dx);
  int left = cellOf(static_cast<float>(x), c_params.dx, c_params.ncells);
  int right = left + 1 == c_params.ncells ? 0 : left + 1;
  Real wr = s - static_cast<Real>(left);
  return (Real(1) - wr) * static_cast<Real>(efield[left]) + wr * static_cast<Real>(efield[right]);
}

// Leapfrog push; Real is the precision of the velocity update.
template <typename Real>
__global__ void pushParticles(Particle* particles, int n, const float* efield) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    Particle& p = particles[i];
    Real e = gatherField<Real>(efield, static_cast<Real>(p.x));
    Real accel = static_cast<Real>(p.q) / static_cast<Real>(p.m) * e;
    p.v = static_cast<float>(static_cast<Real>(p.v) + accel * static_cast<Real>(c_params.dt));
    p.x = wrapPosition(p.x + p.v * c_params.dt, c_params.length);
  }
}

// Per-block partial sums of the kinetic energy and the momentum, added on the host in block order.
__global__ void kineticEnergy(const Particle* particles, int n, double2* partial) {
  __shared__ double2 sums[256];
  double ke = 0.0, mom = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const Particle* p = &particles[i];
    ke += 0.5 * p->m * p->v * p->v;
    mom += static_cast<double>(p->m) * p->v;
  }
  sums[threadIdx.x] = make_double2(ke, mom);
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x].x += sums[threadIdx.x + half].x;
      sums[threadIdx.x].y += sums[threadIdx.x + half].y;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}
