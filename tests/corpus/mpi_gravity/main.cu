// A star cluster split over MPI ranks: each rank owns a contiguous share of the bodies on its GPU;
// every step the ranks exchange positions and masses (MPI_Allgatherv) and move their own bodies
// against all of them.
#include "check.h"
#include "slab.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int total = argc > 1 ? std::atoi(argv[1]) : 65536;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const float dt = 1e-3f;

  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  CHECK(cudaSetDevice(rank % devices));

  // Rank r owns bodies [first[r], first[r] + counts[r]); a Source is four floats on the wire.
  std::vector<int> counts(size), first(size), floats(size), offsets(size);
  for (int r = 0; r < size; ++r) {
    first[r] = int(long(total) * r / size);
    counts[r] = int(long(total) * (r + 1) / size) - first[r];
    floats[r] = 4 * counts[r];
    offsets[r] = 4 * first[r];
  }
  Slab slab(first[rank], counts[rank], total);

  std::vector<Source> mine, all(total);
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s <= steps; ++s) {
    slab.packSources(mine);
    MPI_Allgatherv(mine.data(), floats[rank], MPI_FLOAT, all.data(), floats.data(), offsets.data(), MPI_FLOAT,
                   MPI_COMM_WORLD);
    if (s == steps) break;
    slab.step(all, dt);
    if (s % 10 == 0 || s == steps - 1) {
      const Energies local = slab.energies();
      double sums[2] = {local.kinetic, local.potential}, global[2];
      MPI_Reduce(sums, global, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) std::printf("step %3d  kinetic %.6e  potential %.6e\n", s, global[0], global[1]);
    }
  }
  CHECK(cudaDeviceSynchronize());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double checksum = slab.checksum(), total_checksum = 0;
  MPI_Reduce(&checksum, &total_checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d bodies on %d ranks, %d steps: checksum %.6e\n", total, size, steps, total_checksum);
    std::printf("time %.1f ms\n", 1e3 * seconds);
  }
  MPI_Finalize();
  return 0;
}
