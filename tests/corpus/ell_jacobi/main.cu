// Implicit heat conduction on a grid of cells with long-range contacts: each time step solves
// (I + dt L) u_new = u_old by damped Jacobi sweeps on an ELLPACK matrix; checked against the CPU.
// usage: ell_jacobi [cells per side] [time steps] [sweeps per step]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "ell_matrix.h"
#include "jacobi_kernels.cuh"

#define CUDA_OK(x)                                                                              \
  do {                                                                                          \
    cudaError_t err = (x);                                                                      \
    if (err != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(err)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

constexpr int kBlock = 256;
constexpr int kResidualBlocks = 480;
constexpr float kOmega = 0.8f;

// The same steps on the CPU, in float, summing each row in the GPU's order.
std::vector<float> hostSolve(EllMatrix m, const std::vector<float>& u0, float dt, int steps, int sweeps,
                             double& lastResidual) {
  const int rows = m.rows();
  EllMatrix system(rows);
  std::vector<float> diag(rows, 1.0f);
  for (int row = 0; row < rows; ++row)
    for (int k = 0; k < kEllWidth && m.at(row, k).col >= 0; ++k) {
      const EllEntry& e = m.at(row, k);
      const float v = dt * e.value + (e.col == row ? 1.0f : 0.0f);
      system.add(row, e.col, v);
      if (e.col == row) diag[row] = v;
    }
  std::vector<float> u = u0, x, next(rows), ax;
  for (int s = 0; s < steps; ++s) {
    x = u;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      hostSpmv(system, x, ax);
      for (int row = 0; row < rows; ++row) next[row] = x[row] + kOmega * (u[row] - ax[row]) / diag[row];
      std::swap(x, next);
    }
    hostSpmv(system, x, ax);
    lastResidual = 0.0;
    for (int row = 0; row < rows; ++row) {
      const double r = static_cast<double>(u[row]) - static_cast<double>(ax[row]);
      lastResidual += r * r;
    }
    lastResidual = std::sqrt(lastResidual);
    u = x;
  }
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::atoi(argv[1]) : 112;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  const int sweeps = argc > 3 ? std::atoi(argv[3]) : 24;
  if (side < 4 || steps < 1 || sweeps < 1) {
    std::fprintf(stderr, "usage: %s [cells per side >= 4] [time steps >= 1] [sweeps per step >= 1]\n", argv[0]);
    return 2;
  }
  const float dt = 0.05f;
  const EllMatrix conduction = EllMatrix::conductionLaplacian(side, side, side, 2024u);
  const int rows = conduction.rows();

  std::vector<float> u0(rows);
  for (int i = 0; i < rows; ++i) {
    const int x = i % side, z = i / (side * side);
    u0[i] = (x < side / 8 ? 1.0f : 0.0f) + 0.1f * std::sin(0.2f * z);
  }

  EllEntry* A;
  float *diag, *u, *x, *xNext;
  double* partial;
  CUDA_OK(cudaMalloc(&A, conduction.storedEntries() * sizeof(EllEntry)));
  CUDA_OK(cudaMalloc(&diag, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&u, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&x, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&xNext, rows * sizeof(float)));
  CUDA_OK(cudaMalloc(&partial, kResidualBlocks * sizeof(double)));
  CUDA_OK(cudaMemcpy(A, conduction.data(), conduction.storedEntries() * sizeof(EllEntry), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(u, u0.data(), rows * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  const int blocks = (rows + kBlock - 1) / kBlock;
  std::vector<double> partials(kResidualBlocks);
  double gpuResidual = 0.0;
  CUDA_OK(cudaEventRecord(t0));
  formSystem<<<blocks, kBlock>>>(A, rows, dt);
  extractDiagonal<<<blocks, kBlock>>>(A, rows, diag);
  for (int s = 0; s < steps; ++s) {
    CUDA_OK(cudaMemcpy(x, u, rows * sizeof(float), cudaMemcpyDeviceToDevice));
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      jacobiSweep<<<blocks, kBlock>>>(A, diag, u, x, xNext, rows, kOmega);
      std::swap(x, xNext);
    }
    residualPartials<double, kBlock><<<kResidualBlocks, kBlock>>>(A, u, x, rows, partial);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(partials.data(), partial, kResidualBlocks * sizeof(double), cudaMemcpyDeviceToHost));
    gpuResidual = 0.0;
    for (double p : partials) gpuResidual += p;
    gpuResidual = std::sqrt(gpuResidual);
    CUDA_OK(cudaMemcpy(u, x, rows * sizeof(float), cudaMemcpyDeviceToDevice));
  }
  CUDA_OK(cudaEventRecord(t1));
  CUDA_OK(cudaEventSynchronize(t1));
  float ms = 0.0f;
  CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
  std::vector<float> gpu(rows);
  CUDA_OK(cudaMemcpy(gpu.data(), u, rows * sizeof(float), cudaMemcpyDeviceToHost));

  double cpuResidual = 0.0;
  const std::vector<float> cpu = hostSolve(conduction, u0, dt, steps, sweeps, cpuResidual);
  double maxError = 0.0, heat = 0.0;
  for (int i = 0; i < rows; ++i) {
    maxError = std::max(maxError, std::fabs(static_cast<double>(gpu[i]) - cpu[i]) / std::max(1.0, std::fabs(static_cast<double>(cpu[i]))));
    heat += gpu[i];
  }
  std::printf("%d cells, %zu entries (%zu stored), %d steps of %d sweeps, GPU %.3f ms\n", rows, conduction.nonzeros(),
              conduction.storedEntries(), steps, sweeps, ms);
  std::printf("heat %.4f, last residual %.6e (CPU %.6e), max |u - u_cpu| %.2e\n", heat, gpuResidual, cpuResidual,
              maxError);
  const double tol = 1e-4;
  const bool passed =
      maxError < tol && std::fabs(gpuResidual - cpuResidual) <= 1e-3 * std::max(cpuResidual, 1e-12) + 1e-6;
  std::printf("%s (temperatures within %.0e, relative above 1; residual within a relative 1e-3)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED", tol);

  cudaFree(partial);
  cudaFree(xNext);
  cudaFree(x);
  cudaFree(u);
  cudaFree(diag);
  cudaFree(A);
  return passed ? 0 : 1;
}
