// A cloud of three ion species in a Penning trap with a weak dipole drive, advanced with the Boris
// push; a sample of the ions is followed on the CPU with the same step.
// usage: penning_trap [ions = 4194304] [steps = 2000]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"
#include "trap.h"

namespace {

constexpr int kStatsEvery = 100;
constexpr int kSampleEvery = 1024;

void print(const char* when, const CloudStats& s) {
  std::printf("%s: kinetic %.6f <r^2> %.6f <z^2> %.6f escaped %.6f\n", when, s.kinetic, s.radial, s.axial,
              s.escaped);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 22;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (n < kSampleEvery || steps < 1) {
    std::fprintf(stderr, "usage: %s [ions >= %d] [steps >= 1]\n", argv[0], kSampleEvery);
    return 2;
  }
  const TrapField field = {1.f, 0.05f, 0.01f, 0.7f};
  const float dt = 0.05f, wall = 1.5f;

  std::vector<Ion> sampleIons;
  std::vector<Momentum> sampleMomenta;
  for (int i = 0; i < n; i += kSampleEvery) {
    sampleIons.push_back(initialIon(i));
    sampleMomenta.push_back(initialMomentum(i));
  }

  IonCloud cloud(n);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const CloudStats first = cloud.stats(wall);
  CloudStats last = first;
  double peakRadial = first.radial;
  CHECK(cudaEventRecord(start));
  for (int s = 0; s < steps; ++s) {
    cloud.step(field, s * dt, dt);
    if ((s + 1) % kStatsEvery == 0 || s + 1 == steps) {
      last = cloud.stats(wall);
      peakRadial = std::max(peakRadial, last.radial);
    }
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::vector<Ion> ions;
  std::vector<Momentum> momenta;
  cloud.download(ions, momenta);

  // The sampled ions, step by step on the CPU.
  float maxPos = 0, maxVel = 0;
  int wrong = 0;
  for (size_t k = 0; k < sampleIons.size(); ++k) {
    Ion ion = sampleIons[k];
    Momentum mom = sampleMomenta[k];
    for (int s = 0; s < steps; ++s) borisStep(ion, mom, field, s * dt, dt);
    const Ion& g = ions[k * kSampleEvery];
    const Momentum& m = momenta[k * kSampleEvery];
    const float dp = std::max({std::fabs(g.x - ion.x), std::fabs(g.y - ion.y), std::fabs(g.z - ion.z)});
    const float dv = std::max({std::fabs(m.ux - mom.ux), std::fabs(m.uy - mom.uy), std::fabs(m.uz - mom.uz)});
    maxPos = std::max(maxPos, dp);
    maxVel = std::max(maxVel, dv);
    if (!(dp <= 1e-3f) || !(dv <= 1e-3f) || g.qm != ion.qm || m.weight != mom.weight) ++wrong;
  }

  std::printf("ions %d, %d steps of %.3f\n", n, steps, dt);
  std::printf("kernel time %.1f ms\n", ms);
  print("start", first);
  print("end", last);
  std::printf("largest <r^2> seen %.6f\n", peakRadial);
  std::printf("ion 0 at %.5f %.5f %.5f\n", ions[0].x, ions[0].y, ions[0].z);
  std::printf("%zu sampled ions against the CPU: %d differ\n", sampleIons.size(), wrong);
  const bool passed = wrong == 0 && std::isfinite(last.kinetic);
  std::printf("%s (every %dth ion: positions and velocities within 1e-3)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
              kSampleEvery);
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  return passed ? 0 : 1;
}
