#include "forces.cuh"

#include <cstdio>
#include <vector>

int main() {
  const int atoms = 4096, maxNeighbors = 32;
  std::vector<float4> positions(atoms);
  std::vector<int> neighbors(atoms * maxNeighbors);
  for (int i = 0; i < atoms; ++i) {
    positions[i] = make_float4(i % 16, (i / 16) % 16, i / 256, (i % 2) ? 1.0f : -1.0f);
    for (int k = 0; k < maxNeighbors; ++k) neighbors[i * maxNeighbors + k] = (i + k + 1) % atoms;
  }
  float4* dPositions;
  int* dNeighbors;
  cudaMalloc(&dPositions, atoms * sizeof(float4));
  cudaMalloc(&dNeighbors, atoms * maxNeighbors * sizeof(int));
  cudaMemcpy(dPositions, positions.data(), atoms * sizeof(float4), cudaMemcpyHostToDevice);
  cudaMemcpy(dNeighbors, neighbors.data(), atoms * maxNeighbors * sizeof(int), cudaMemcpyHostToDevice);
  ForceField field(atoms);
  field.compute(dPositions, dNeighbors, maxNeighbors, 2.5f, 0.5f);
  std::vector<Force> forces(atoms);
  field.download(forces.data());
  double energy = 0;
  for (const Force& f : forces) energy += f.energy;
  std::printf("energy %.6f\n", energy);
  cudaFree(dPositions);
  cudaFree(dNeighbors);
  return 0;
}
