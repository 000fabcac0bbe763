// Sparse matrix-vector products on a COO matrix of {row, col, val} entries and on its CSR form, then
// Jacobi iterations on the CSR form; every result is checked against the CPU.
// usage: spmv_coo [grid side] [extra couplings per row] [jacobi iterations]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sparse.h"
#include "spmv_kernels.cuh"

#define CUDA_OK(x)                                                                              \
  do {                                                                                          \
    cudaError_t err = (x);                                                                      \
    if (err != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(err)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

static const int kBlock = 256;
static const int kResidualBlocks = 512;

static void hostSpmv(const CooMatrix& m, const float* x, std::vector<double>& y) {
  y.assign(m.rows, 0.0);
  for (const Entry& e : m.entries) y[e.row] += static_cast<double>(e.val) * x[e.col];
}

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int extra = argc > 2 ? std::atoi(argv[2]) : 2;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 20;
  if (side < 2 || extra < 0 || iterations < 1) {
    std::fprintf(stderr, "usage: %s [grid side >= 2] [extra couplings >= 0] [iterations >= 1]\n", argv[0]);
    return 2;
  }
  const CooMatrix a = makeMatrix(side, extra);
  const int rows = a.rows;
  const int nnz = static_cast<int>(a.entries.size());

  float *hostX, *hostB;
  CUDA_OK(cudaMallocHost(&hostX, rows * sizeof(float)));
  CUDA_OK(cudaMallocHost(&hostB, rows * sizeof(float)));
  for (int i = 0; i < rows; ++i) {
    hostX[i] = std::sin(0.001f * i);
    hostB[i] = 1.0f + 0.1f * (i % 7);
  }

  Entry* coo;
  CsrEntry* csr;
  int* rowStart;
  float *diag, *xProbe, *yCoo, *yCsr, *b, *x;
  double *ax, *residualPartial;
  CUDA_OK(cudaMalloc(&coo, nnz * sizeof(Entry)));
  CUDA_OK(cudaMalloc(&csr, nnz * sizeof(CsrEntry)));
  CUDA_OK(cudaMalloc(&rowStart, (rows + 1) * sizeof(int)));
  CUDA_OK(cudaMalloc(&diag, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&xProbe, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&yCoo, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&yCsr, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&b, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&ax, rows * sizeof(double)));
  CUDA_OK(cudaMalloc(&residualPartial, kResidualBlocks * sizeof(double)));
  CUDA_OK(cudaMallocManaged(&x, rows * sizeof(float)));
  CUDA_OK(cudaMemcpy(coo, a.entries.data(), nnz * sizeof(Entry), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(rowStart + rows, &nnz, sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(xProbe, hostX, rows * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b, hostB, rows * sizeof(float), cudaMemcpyHostToDevice));
  std::fill(x, x + rows, 0.0f);

  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  CUDA_OK(cudaEventRecord(t0));
  const int entryBlocks = (nnz + kBlock - 1) / kBlock;
  const int rowBlocks = (rows + kBlock - 1) / kBlock;
  const int warpBlocks = (rows + kBlock / 32 - 1) / (kBlock / 32);
  markRowStarts<<<entryBlocks, kBlock>>>(coo, nnz, rowStart);
  extractDiagonal<<<entryBlocks, kBlock>>>(coo, nnz, diag);
  cooToCsr<<<entryBlocks, kBlock>>>(coo, nnz, csr);
  spmvCoo<<<rowBlocks, kBlock>>>(coo, rowStart, rows, xProbe, yCoo);
  spmvCsrWarp<float><<<warpBlocks, kBlock>>>(rowStart, csr, rows, xProbe, yCsr);
  for (int it = 0; it < iterations; ++it) {
    spmvCsrWarp<double><<<warpBlocks, kBlock>>>(rowStart, csr, rows, x, ax);
    jacobiUpdate<<<kResidualBlocks, kBlock>>>(ax, b, diag, rows, x, residualPartial);
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventRecord(t1));
  CUDA_OK(cudaDeviceSynchronize());
  float ms = 0.0f;
  CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
  std::vector<float> gpuCoo(rows), gpuCsr(rows);
  std::vector<double> partial(kResidualBlocks);
  CUDA_OK(cudaMemcpy(gpuCoo.data(), yCoo, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(gpuCsr.data(), yCsr, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(partial.data(), residualPartial, kResidualBlocks * sizeof(double), cudaMemcpyDeviceToHost));
  double gpuResidual = 0.0;
  for (double p : partial) gpuResidual += p;
  gpuResidual = std::sqrt(gpuResidual);

  // CPU: the product, then the same Jacobi iterations (float iterate, double sums).
  std::vector<double> reference;
  hostSpmv(a, hostX, reference);
  double maxCoo = 0.0, maxCsr = 0.0, sumY = 0.0;
  for (int i = 0; i < rows; ++i) {
    double scale = std::max(1.0, std::fabs(reference[i]));
    maxCoo = std::max(maxCoo, std::fabs(gpuCoo[i] - reference[i]) / scale);
    maxCsr = std::max(maxCsr, std::fabs(gpuCsr[i] - reference[i]) / scale);
    sumY += gpuCsr[i];
  }
  std::vector<float> xRef(rows, 0.0f), diagonal(rows);
  for (const Entry& e : a.entries)
    if (e.row == e.col) diagonal[e.row] = e.val;
  std::vector<double> axRef;
  double cpuResidual = 0.0;
  for (int it = 0; it < iterations; ++it) {
    hostSpmv(a, xRef.data(), axRef);
    cpuResidual = 0.0;
    for (int i = 0; i < rows; ++i) {
      double residual = hostB[i] - axRef[i];
      xRef[i] = static_cast<float>(xRef[i] + residual / diagonal[i]);
      cpuResidual += residual * residual;
    }
  }
  cpuResidual = std::sqrt(cpuResidual);
  double maxX = 0.0, sumX = 0.0;
  for (int i = 0; i < rows; ++i) {
    maxX = std::max(maxX, static_cast<double>(std::fabs(x[i] - xRef[i])));
    sumX += x[i];
  }

  std::printf("%d rows, %d entries, %d Jacobi iterations, GPU %.3f ms\n", rows, nnz, iterations, ms);
  std::printf("sum of A*x %.4f, max error COO %.2e CSR %.2e\n", sumY, maxCoo, maxCsr);
  std::printf("Jacobi: residual %.6e (CPU %.6e), sum of x %.4f, max |x - x_cpu| %.2e\n", gpuResidual, cpuResidual, sumX,
              maxX);
  const double tol = 1e-5;
  bool passed = maxCoo < tol && maxCsr < tol && maxX < tol &&
                std::fabs(gpuResidual - cpuResidual) <= 1e-4 * std::max(cpuResidual, 1e-12);
  std::printf("%s (products and iterates within %.0e, relative above 1; residual within a relative 1e-4)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED", tol);

  cudaFree(x);
  cudaFree(residualPartial);
  cudaFree(ax);
  cudaFree(b);
  cudaFree(yCsr);
  cudaFree(yCoo);
  cudaFree(xProbe);
  cudaFree(diag);
  cudaFree(rowStart);
  cudaFree(csr);
  cudaFree(coo);
  cudaFreeHost(hostB);
  cudaFreeHost(hostX);
  return passed ? 0 : 1;
}
