// The implicit heat step's kernels, one thread per row of the ELL matrix.
#pragma once
#include "ell_matrix.h"

// M = I + dt * L, in place: the conduction matrix becomes the implicit step's system.
__global__ void formSystem(EllEntry* A, int rows, float dt) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int k = 0; k < kEllWidth; ++k) {
    const int col = A[row * kEllWidth + k].col;
    if (col < 0) break;
    A[row * kEllWidth + k].value = dt * A[row * kEllWidth + k].value + (col == row ? 1.0f : 0.0f);
  }
}

__global__ void extractDiagonal(const EllEntry* A, int rows, float* diag) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float d = 1.0f;
  for (int k = 0; k < kEllWidth; ++k)
    if (A[row * kEllWidth + k].col == row) d = A[row * kEllWidth + k].value;
  diag[row] = d;
}

// One damped Jacobi sweep: xNext = x + omega * (b - M x) / diag(M).
__global__ void jacobiSweep(const EllEntry* __restrict__ A, const float* __restrict__ diag,
                            const float* __restrict__ b, const float* __restrict__ x, float* __restrict__ xNext,
                            int rows, float omega) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float ax = 0.0f;
  for (int k = 0; k < kEllWidth; ++k) {
    const EllEntry e = A[row * kEllWidth + k];
    if (e.col < 0) break;  // the rest of the row is padding
    ax += e.value * x[e.col];
  }
  xNext[row] = x[row] + omega * (b[row] - ax) / diag[row];
}

// Per block, the sum of squared residuals (b - M x)^2, accumulated in Real.
template <typename Real, int kBlock>
__global__ void residualPartials(const EllEntry* A, const float* b, const float* x, int rows, Real* partial) {
  __shared__ Real sums[kBlock];
  Real local = 0;
  for (int row = blockIdx.x * kBlock + threadIdx.x; row < rows; row += gridDim.x * kBlock) {
    float ax = 0.0f;
    for (int k = 0; k < kEllWidth; ++k) {
      if (A[row * kEllWidth + k].col < 0) break;
      ax += A[row * kEllWidth + k].value * x[A[row * kEllWidth + k].col];
    }
    const Real r = static_cast<Real>(b[row]) - static_cast<Real>(ax);
    local += r * r;
  }
  sums[threadIdx.x] = local;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}
