// Electrostatic potential maps of a tumbling coarse-grained molecule (charge + dipole beads), one
// map per frame; sampled grid points of the last map are checked against a double sum on the CPU.
// usage: esp_map [grid points per side = 128] [beads = 16384] [frames = 40]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

class Random {
 public:
  explicit Random(unsigned seed) : state_(seed) {}
  float uniform() {  // [0, 1)
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return (state_ >> 8) * (1.f / 16777216.f);
  }
  float between(float lo, float hi) { return lo + (hi - lo) * uniform(); }

 private:
  unsigned state_;
};

// Beads along a folded chain inside a sphere of radius 10: alternating charges, dipoles along the chain.
std::vector<Multipole> makeMolecule(int count) {
  Random random(97531);
  std::vector<Multipole> beads(count);
  float3 at = make_float3(0.f, 0.f, 0.f);
  for (int i = 0; i < count; ++i) {
    float3 step = make_float3(random.between(-1.f, 1.f), random.between(-1.f, 1.f), random.between(-1.f, 1.f));
    const float norm = std::sqrt(step.x * step.x + step.y * step.y + step.z * step.z) + 1e-3f;
    step = make_float3(0.8f * step.x / norm, 0.8f * step.y / norm, 0.8f * step.z / norm);
    float3 next = make_float3(at.x + step.x, at.y + step.y, at.z + step.z);
    if (next.x * next.x + next.y * next.y + next.z * next.z > 100.f)  // fold back towards the centre
      next = make_float3(at.x - step.x, at.y - step.y, at.z - step.z);
    at = next;
    Multipole& b = beads[i];
    b.centre = at;
    b.charge = (i % 7 == 0 ? -1.f : 0.25f) * random.between(0.5f, 1.f);
    b.dipole = make_float3(0.3f * step.x, 0.3f * step.y, 0.3f * step.z);
    b.radius = random.between(0.6f, 1.4f);
  }
  return beads;
}

Pose poseForFrame(int frame, int frames) {
  const float angle = 6.2831853f * frame / frames;
  return Pose{std::cos(angle), std::sin(angle), make_float3(0.5f * std::sin(angle), 0.f, 0.25f * std::cos(angle))};
}

}  // namespace

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::atoi(argv[1]) : 128;
  const int count = argc > 2 ? std::atoi(argv[2]) : 16384;
  const int frames = argc > 3 ? std::atoi(argv[3]) : 40;
  if (side < 8 || side > 1024 || count < 1 || frames < 1) {
    std::fprintf(stderr, "usage: %s [grid points per side 8..1024] [beads >= 1] [frames >= 1]\n", argv[0]);
    return 2;
  }
  // A box of edge 32 around the molecule, half as many planes along z.
  const GridSpec grid = {side, side, side / 2, make_float3(-16.f, -16.f, -16.f), 32.f / (side - 1)};
  const std::vector<Multipole> rest = makeMolecule(count);

  Multipole *d_rest = nullptr, *d_posed = nullptr;
  float* d_map = nullptr;
  CHECK(cudaMalloc(&d_rest, sizeof(Multipole) * count));
  CHECK(cudaMalloc(&d_posed, sizeof(Multipole) * count));
  CHECK(cudaMalloc(&d_map, sizeof(float) * grid.points()));
  CHECK(cudaMemcpy(d_rest, rest.data(), sizeof(Multipole) * count, cudaMemcpyHostToDevice));

  std::vector<float> map(grid.points());
  std::vector<double> centreValue(frames);
  const size_t centre = grid.index(side / 2, side / 2, side / 4);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  float ms = 0;
  for (int frame = 0; frame < frames; ++frame) {
    CHECK(cudaEventRecord(start));
    poseModel(d_rest, d_posed, count, poseForFrame(frame, frames));
    mapPotential(d_posed, count, grid, d_map);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaMemcpy(map.data(), d_map, sizeof(float) * grid.points(), cudaMemcpyDeviceToHost));
    float frameMs = 0;
    CHECK(cudaEventElapsedTime(&frameMs, start, stop));
    ms += frameMs;
    centreValue[frame] = map[centre];
  }

  // The last frame: 199 scattered grid points against a double sum over the CPU-posed beads.
  const Pose pose = poseForFrame(frames - 1, frames);
  std::vector<Multipole> posed(count);
  for (int i = 0; i < count; ++i) posed[i] = pose.apply(rest[i]);
  int wrong = 0;
  double maxErr = 0;
  for (int s = 0; s < 199; ++s) {
    const size_t at = (size_t(s) * 2654435761u) % grid.points();
    const int ix = int(at % grid.nx), iy = int(at / grid.nx % grid.ny), iz = int(at / (size_t(grid.nx) * grid.ny));
    const float3 p = grid.point(ix, iy, iz);
    double phi = 0, scale = 0;
    for (const Multipole& b : posed) {
      const double dx = p.x - b.centre.x, dy = p.y - b.centre.y, dz = p.z - b.centre.z;
      const double r2 = dx * dx + dy * dy + dz * dz + double(b.radius) * b.radius;
      const double inv = 1.0 / std::sqrt(r2);
      const double mono = b.charge * inv, dip = (b.dipole.x * dx + b.dipole.y * dy + b.dipole.z * dz) * inv * inv * inv;
      phi += mono + dip;
      scale += std::fabs(mono) + std::fabs(dip);
    }
    const double err = std::fabs(map[at] - phi);
    maxErr = std::max(maxErr, err / scale);
    if (!(err <= 1e-4 * scale + 1e-6)) ++wrong;
  }

  double lo = map[0], hi = map[0], sum = 0;
  for (float v : map) {
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
    sum += v;
  }
  std::printf("grid %d x %d x %d, %d beads, %d frames\n", grid.nx, grid.ny, grid.nz, count, frames);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("potential at the centre: frame 0 %.6f, frame %d %.6f, last %.6f\n", centreValue[0], frames / 2,
              centreValue[frames / 2], centreValue[frames - 1]);
  std::printf("last map: min %.6f max %.6f mean %.6f\n", lo, hi, sum / grid.points());
  std::printf("199 sampled points against the CPU: %d differ\n", wrong);
  const bool passed = wrong == 0 && std::isfinite(sum);
  std::printf("%s (within 1e-4 of the sum of the terms' magnitudes)\n", passed ? "CHECK PASSED" : "CHECK FAILED");
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cudaFree(d_map);
  cudaFree(d_posed);
  cudaFree(d_rest);
  return passed ? 0 : 1;
}
