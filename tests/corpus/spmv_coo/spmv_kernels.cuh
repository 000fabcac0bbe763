// SpMV on the COO entries (one thread per row segment) and on the CSR form (one warp per row),
// and the Jacobi update built on them.
#pragma once
#include "sparse.h"

// Entries are sorted by row: a row starts where the row index changes.
__global__ void markRowStarts(const Entry* coo, int nnz, int* rowStart) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  if (k == 0 || coo[k].row != coo[k - 1].row) rowStart[coo[k].row] = k;
}

__global__ void extractDiagonal(const Entry* coo, int nnz, float* diag) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz && coo[k].row == coo[k].col) diag[coo[k].row] = coo[k].val;
}

__global__ void spmvCoo(const Entry* coo, const int* rowStart, int rows, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int k = rowStart[r]; k < rowStart[r + 1]; ++k) {
    const Entry* e = coo + k;
    sum += e->val * x[e->col];
  }
  y[r] = sum;
}

__global__ void cooToCsr(const Entry* coo, int nnz, CsrEntry* csr) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  csr[k].col = coo[k].col;
  csr[k].val = coo[k].val;
}

// One warp per row; the lanes' partial sums are combined by a fixed shuffle tree.
template <typename Real>
__global__ void spmvCsrWarp(const int* rowPtr, const CsrEntry* csr, int rows, const float* x, Real* y) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  Real sum = 0;
  for (int k = rowPtr[row] + lane; k < rowPtr[row + 1]; k += 32) {
    const CsrEntry& e = csr[k];
    sum += static_cast<Real>(e.val) * static_cast<Real>(x[e.col]);
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

// x += (b - A x) / diag, and each block's share of |b - A x|^2.
__global__ void jacobiUpdate(const double* ax, const float* b, const float* diag, int rows, float* x,
                             double* residualPartial) {
  __shared__ double partial[256];
  double r2 = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x) {
    double residual = b[i] - ax[i];
    x[i] = static_cast<float>(x[i] + residual / diag[i]);
    r2 += residual * residual;
  }
  partial[threadIdx.x] = r2;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) residualPartial[blockIdx.x] = partial[0];
}
