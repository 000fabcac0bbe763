// Deterministic initial state, generated on the GPU.
#include "particles/particle.h"

namespace particles {
namespace {

// A 32-bit integer hash (lowbias32), so that every particle draws its own numbers without state.
__device__ unsigned hash32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// A float in [0, 1) from the top 24 bits of a hash.
__device__ float unitFloat(unsigned h) { return static_cast<float>(h >> 8) * (1.f / 16777216.f); }

__global__ void initLattice(Particle* particles, int n, int side, unsigned seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned h = hash32(seed ^ (static_cast<unsigned>(i) * 0x9e3779b9U));
    int x = i % side, y = (i / side) % side, z = i / (side * side);
    Particle p;
    // Jitter within the middle half of the cell keeps every pair at least half a unit apart.
    p.position = make_float3(x + 0.25f + 0.5f * unitFloat(h), y + 0.25f + 0.5f * unitFloat(hash32(h + 1)),
                             z + 0.25f + 0.5f * unitFloat(hash32(h + 2)));
    p.velocity = make_float3(0.2f * (unitFloat(hash32(h + 3)) - 0.5f), 0.2f * (unitFloat(hash32(h + 4)) - 0.5f),
                             0.2f * (unitFloat(hash32(h + 5)) - 0.5f));
    p.mass = 1.f + 0.5f * static_cast<float>(i % 3);
    p.charge = (i % 2 == 0) ? 1.f : -1.f;
    p.id = i;
    particles[i] = p;
  }
}

}  // namespace

cudaError_t initializeParticles(Particle* deviceParticles, int n, unsigned seed, const SimParams& params) {
  int side = latticeSide(n);
  if (params.box < static_cast<float>(side)) return cudaErrorInvalidValue;
  const int threads = 256;
  initLattice<<<(n + threads - 1) / threads, threads>>>(deviceParticles, n, side, seed);
  return cudaGetLastError();
}

}  // namespace particles
