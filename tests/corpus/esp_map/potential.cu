// The potential map: each block stages tiles of beads in shared memory, and each of its threads adds
// every bead of the tile to the potential at its own grid point.
#include <cstdio>
#include <cstdlib>

#include "multipole.h"

#define CHECK(call)                                                                                              \
  do {                                                                                                           \
    const cudaError_t status_ = (call);                                                                          \
    if (status_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "esp_map: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,                     \
                   cudaGetErrorString(status_));                                                                 \
      std::exit(2);                                                                                              \
    }                                                                                                            \
  } while (0)

namespace {

constexpr int kTileX = 32, kTileY = 8, kTile = kTileX * kTileY;

__global__ void poseBeads(const Multipole* rest, Multipole* posed, int count, Pose pose) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) posed[i] = pose.apply(rest[i]);
}

template <int TILE>
__global__ void potentialMap(const Multipole* beads, int count, GridSpec grid, float* potential) {
  __shared__ Multipole tile[TILE];
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  const int iz = blockIdx.z;
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  const bool inside = ix < grid.nx && iy < grid.ny;
  const float3 p = grid.point(ix, iy, iz);
  float phi = 0.f;
  for (int base = 0; base < count; base += TILE) {
    if (base + t < count) tile[t] = beads[base + t];
    __syncthreads();
    const int inTile = count - base < TILE ? count - base : TILE;
    for (int j = 0; j < inTile; ++j) phi += tile[j].potentialAt(p);
    __syncthreads();
  }
  if (inside) potential[grid.index(ix, iy, iz)] = phi;
}

}  // namespace

void poseModel(const Multipole* rest, Multipole* posed, int count, const Pose& pose) {
  poseBeads<<<(count + 255) / 256, 256>>>(rest, posed, count, pose);
  CHECK(cudaGetLastError());
}

void mapPotential(const Multipole* beads, int count, const GridSpec& grid, float* potential) {
  const dim3 threads(kTileX, kTileY);
  const dim3 blocks((grid.nx + kTileX - 1) / kTileX, (grid.ny + kTileY - 1) / kTileY, grid.nz);
  potentialMap<kTile><<<blocks, threads>>>(beads, count, grid, potential);
  CHECK(cudaGetLastError());
}
