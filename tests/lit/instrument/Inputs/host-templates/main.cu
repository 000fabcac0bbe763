#include <cstdio>

#include "tally.cuh"

int main() {
  Tally* tallies = nullptr;
  cudaMalloc(&tallies, 64 * sizeof(Tally));
  reset<unsigned int>(tallies, 64);
  std::vector<unsigned int> ids(1 << 16);
  std::vector<float> energies(1 << 16);
  for (int i = 0; i < (1 << 16); ++i) ids[i] = 7u * i, energies[i] = 0.25f * i;
  tally(ids, tallies);
  tally(energies, tallies);
  reset<float>(tallies, 64);
  Tally first;
  cudaMemcpy(&first, tallies, sizeof first, cudaMemcpyDeviceToHost);
  printf("%d %.2f\n", first.hits, first.weight);
  return 0;
}
