// Lennard-Jones molecular dynamics of a binary mixture with a cell list, checked against the CPU.
// usage: md_celllist [fcc cells per side] [steps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "md_kernels.cuh"
#include "reference.h"

#define CHECK_CUDA(call)                                                                                \
  do {                                                                                                  \
    cudaError_t status = (call);                                                                        \
    if (status != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(status), __FILE__, __LINE__); \
      std::exit(2);                                                                                     \
    }                                                                                                   \
  } while (0)

namespace {

const int kThreads = 128;

struct CellList {
  int* atomCell;
  int* cellCount;
  int* cellStart;
  int* cellCursor;
  int* cellAtoms;
  int ncells;
};

unsigned int nextRandom(unsigned int& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

float uniform(unsigned int& state) { return (nextRandom(state) & 0xffffff) / 16777216.0f; }

// FCC lattice with a small jitter; every fifth atom is of type 1; zero total momentum.
void initAtoms(Atom* atoms, int cellsPerSide, float spacing) {
  const float basis[4][3] = {{0, 0, 0}, {0.5f, 0.5f, 0}, {0.5f, 0, 0.5f}, {0, 0.5f, 0.5f}};
  unsigned int seed = 2463534242u;
  int n = 0;
  double px = 0, py = 0, pz = 0;
  for (int z = 0; z < cellsPerSide; ++z)
    for (int y = 0; y < cellsPerSide; ++y)
      for (int x = 0; x < cellsPerSide; ++x)
        for (int b = 0; b < 4; ++b) {
          float3 pos = make_float3((x + basis[b][0]) * spacing + 0.02f * (uniform(seed) - 0.5f),
                                   (y + basis[b][1]) * spacing + 0.02f * (uniform(seed) - 0.5f),
                                   (z + basis[b][2]) * spacing + 0.02f * (uniform(seed) - 0.5f));
          float3 vel = make_float3(uniform(seed) - 0.5f, uniform(seed) - 0.5f, uniform(seed) - 0.5f);
          px += vel.x;
          py += vel.y;
          pz += vel.z;
          atoms[n] = Atom(pos, vel, n % 5 == 4 ? 1 : 0);
          ++n;
        }
  float3 drift = make_float3(px / n, py / n, pz / n);
  for (int i = 0; i < n; ++i) {
    float3 v = atoms[i].velocity();
    float3 p = atoms[i].position();
    // Positions may sit just below zero after the jitter: one drift of length 0 wraps them.
    atoms[i] = Atom(p, make_float3(v.x - drift.x, v.y - drift.y, v.z - drift.z), atoms[i].type());
    atoms[i].drift(0.f, cellsPerSide * spacing);
  }
}

void buildCellList(Atom* atoms, int n, const Box& box, CellList& cells) {
  CHECK_CUDA(cudaMemset(cells.cellCount, 0, sizeof(int) * cells.ncells));
  int blocks = (n + kThreads - 1) / kThreads;
  assignCells<<<blocks, kThreads>>>(atoms, n, box, cells.atomCell, cells.cellCount);
  scanCells<<<1, kScanThreads>>>(cells.cellCount, cells.cellStart, cells.cellCursor, cells.ncells);
  fillCells<<<blocks, kThreads>>>(cells.atomCell, n, cells.cellStart, cells.cellCursor, cells.cellAtoms);
  sortCells<<<(cells.ncells + kThreads - 1) / kThreads, kThreads>>>(cells.cellStart, cells.cellCount, cells.cellAtoms,
                                                                    cells.ncells);
}

double sum(const float* values, int n) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += values[i];
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const int cellsPerSide = argc > 1 ? std::atoi(argv[1]) : 20;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  if (cellsPerSide < 5 || steps < 1) {
    std::fprintf(stderr, "usage: %s [fcc cells per side >= 5] [steps >= 1]\n", argv[0]);
    return 2;
  }
  const int n = 4 * cellsPerSide * cellsPerSide * cellsPerSide;
  const float density = 0.8f, dt = 0.002f;
  const float spacing = std::cbrt(4.0f / density);

  MixtureTable mix;
  const float eps[kTypes][kTypes] = {{1.0f, 1.5f}, {1.5f, 0.5f}};
  const float sigma[kTypes][kTypes] = {{1.0f, 0.8f}, {0.8f, 0.88f}};
  for (int a = 0; a < kTypes; ++a) {
    mix.mass[a] = 1.0f;
    for (int b = 0; b < kTypes; ++b) {
      mix.epsilon[a][b] = eps[a][b];
      mix.sigma2[a][b] = sigma[a][b] * sigma[a][b];
    }
  }
  mix.cutoff2 = 2.5f * 2.5f;
  Box box;
  box.length = cellsPerSide * spacing;
  box.cellsPerDim = static_cast<int>(box.length / 2.5f);
  box.cellSize = box.length / box.cellsPerDim;
  CHECK_CUDA(cudaMemcpyToSymbol(c_mixture, &mix, sizeof(mix)));

  Atom* atoms = nullptr;
  CHECK_CUDA(cudaMallocManaged(&atoms, sizeof(Atom) * n));
  initAtoms(atoms, cellsPerSide, spacing);
  std::vector<Atom> reference(atoms, atoms + n);

  CellList cells;
  cells.ncells = box.cellsPerDim * box.cellsPerDim * box.cellsPerDim;
  CHECK_CUDA(cudaMalloc(&cells.atomCell, sizeof(int) * n));
  CHECK_CUDA(cudaMalloc(&cells.cellAtoms, sizeof(int) * n));
  CHECK_CUDA(cudaMalloc(&cells.cellCount, sizeof(int) * cells.ncells));
  CHECK_CUDA(cudaMalloc(&cells.cellStart, sizeof(int) * cells.ncells));
  CHECK_CUDA(cudaMalloc(&cells.cellCursor, sizeof(int) * cells.ncells));
  float *potential = nullptr, *kinetic = nullptr;
  CHECK_CUDA(cudaMalloc(&potential, sizeof(float) * n));
  CHECK_CUDA(cudaMalloc(&kinetic, sizeof(float) * n));
  float *hostPotential = nullptr, *hostKinetic = nullptr;
  CHECK_CUDA(cudaMallocHost(&hostPotential, sizeof(float) * n));
  CHECK_CUDA(cudaMallocHost(&hostKinetic, sizeof(float) * n));

  const int blocks = (n + kThreads - 1) / kThreads;
  cudaEvent_t begin, end;
  CHECK_CUDA(cudaEventCreate(&begin));
  CHECK_CUDA(cudaEventCreate(&end));
  CHECK_CUDA(cudaEventRecord(begin));
  buildCellList(atoms, n, box, cells);
  computeForces<float>
      <<<blocks, kThreads>>>(atoms, n, box, cells.cellStart, cells.cellCount, cells.cellAtoms, potential);
  CHECK_CUDA(cudaMemcpy(hostPotential, potential, sizeof(float) * n, cudaMemcpyDeviceToHost));
  double initialPotential = sum(hostPotential, n);
  for (int step = 0; step < steps; ++step) {
    kickDrift<<<blocks, kThreads>>>(atoms, n, dt, box.length);
    buildCellList(atoms, n, box, cells);
    computeForces<float>
        <<<blocks, kThreads>>>(atoms, n, box, cells.cellStart, cells.cellCount, cells.cellAtoms, potential);
    kick<<<blocks, kThreads>>>(atoms, n, dt, kinetic);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(end));
  CHECK_CUDA(cudaMemcpy(hostPotential, potential, sizeof(float) * n, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hostKinetic, kinetic, sizeof(float) * n, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaDeviceSynchronize());
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, begin, end));
  double gpuPotential = sum(hostPotential, n), gpuKinetic = sum(hostKinetic, n);

  std::vector<float> refPotential, refKinetic;
  referenceForces(reference, box, mix, refPotential);
  for (int step = 0; step < steps; ++step) referenceStep(reference, box, mix, dt, refPotential, refKinetic);
  double cpuPotential = sum(refPotential.data(), n), cpuKinetic = sum(refKinetic.data(), n);

  double maxShift = 0;
  for (int i = 0; i < n; ++i) {
    float3 g = atoms[i].position(), c = reference[i].position();
    float d = std::max(
        std::fabs(minimumImage(g.x - c.x, box.length)),
        std::max(std::fabs(minimumImage(g.y - c.y, box.length)), std::fabs(minimumImage(g.z - c.z, box.length))));
    maxShift = std::max(maxShift, static_cast<double>(d));
  }
  const double tol = 1e-4;
  double potentialErr = std::fabs(gpuPotential - cpuPotential) / std::fabs(cpuPotential);
  double kineticErr = std::fabs(gpuKinetic - cpuKinetic) / cpuKinetic;
  std::printf("atoms %d, box %.4f, %d^3 cells, %d steps, GPU %.3f ms\n", n, box.length, box.cellsPerDim, steps, ms);
  std::printf("potential energy per atom: initial %.6f final %.6f (CPU %.6f)\n", initialPotential / n, gpuPotential / n,
              cpuPotential / n);
  std::printf("kinetic energy per atom %.6f (CPU %.6f), total %.6f\n", gpuKinetic / n, cpuKinetic / n,
              (gpuPotential + gpuKinetic) / n);
  std::printf("max position difference %.3e\n", maxShift);
  bool passed = potentialErr < tol && kineticErr < tol && maxShift < 1e-3;
  std::printf("%s (energies within a relative %.0e, positions within 1e-3)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
              tol);

  cudaFreeHost(hostKinetic);
  cudaFreeHost(hostPotential);
  cudaFree(kinetic);
  cudaFree(potential);
  cudaFree(cells.cellCursor);
  cudaFree(cells.cellStart);
  cudaFree(cells.cellCount);
  cudaFree(cells.cellAtoms);
  cudaFree(cells.atomCell);
  cudaFree(atoms);
  return passed ? 0 : 1;
}
