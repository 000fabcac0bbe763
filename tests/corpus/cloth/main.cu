// A square cloth pinned at two corners falls onto a ball; the GPU run is compared with the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cloth.h"

// The same step on the CPU, in the same order of springs per particle.
static void referenceSteps(const ClothMesh& mesh, std::vector<Particle>& ps, const ClothParams& prm, int steps,
                           double* energy) {
  const HookeModel model{0.5f};
  const int n = int(ps.size());
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      float3 f = make_float3(0, 0, 0);
      for (int e = mesh.adjStart[i]; e < mesh.adjStart[i + 1]; ++e) {
        const Spring& sp = mesh.springs[mesh.adjSpring[e]];
        f = f + model(ps[i], ps[sp.a == i ? sp.b : sp.a], sp);
      }
      ps[i].force = f;
    }
    for (Particle& p : ps) {
      if (p.pinned()) continue;
      p.vel.x = prm.drag * (p.vel.x + prm.dt * p.force.x * p.invMass);
      p.vel.y = prm.drag * (p.vel.y + prm.dt * (p.force.y * p.invMass - prm.gravity));
      p.vel.z = prm.drag * (p.vel.z + prm.dt * p.force.z * p.invMass);
      p.pos = p.pos + prm.dt * p.vel;
    }
    for (Particle& p : ps) {
      const float3 d = p.pos - prm.ballCentre;
      const float dist = length(d);
      if (dist < prm.ballRadius && dist > 0.0f) {
        p.pos = prm.ballCentre + (prm.ballRadius / dist) * d;
        p.vel = make_float3(0, 0, 0);
      }
    }
  }
  *energy = 0;
  for (const Spring& sp : mesh.springs) {
    const float stretch = length(ps[sp.b].pos - ps[sp.a].pos) - sp.rest;
    *energy += 0.5f * sp.k * stretch * stretch;
  }
}

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::max(4, atoi(argv[1])) : 256;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 30;
  const float spacing = 1.0f / side;

  ClothParams prm;
  prm.dt = 1e-3f;
  prm.gravity = 9.81f;
  prm.drag = 0.999f;
  prm.ballCentre = make_float3(0.5f, 0.7f, 0.5f);
  prm.ballRadius = 0.3f - 0.5f * spacing;

  const ClothMesh mesh = buildCloth(side, side, spacing);
  double gpuEnergy = 0, cpuEnergy = 0;
  const std::vector<Particle> gpu = simulateOnGpu(mesh, prm, steps, &gpuEnergy);
  std::vector<Particle> cpu = mesh.particles;
  referenceSteps(mesh, cpu, prm, steps, &cpuEnergy);

  // Positions within 1e-4 (the cloth is 1 wide), the elastic energy within 1e-2 relative.
  double maxErr = 0, lowest = 1e30, meanHeight = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    const float3 d = gpu[i].pos - cpu[i].pos;
    maxErr = std::max(maxErr, double(std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)})));
    lowest = std::min(lowest, double(gpu[i].pos.y));
    meanHeight += gpu[i].pos.y / gpu.size();
  }
  const double energyErr = std::fabs(gpuEnergy - cpuEnergy) / std::max(1e-12, std::fabs(cpuEnergy));
  printf("cloth %dx%d, %zu springs, %d steps\n", side, side, mesh.springs.size(), steps);
  printf("mean height    %.5f\n", meanHeight);
  printf("lowest point   %.5f\n", lowest);
  printf("spring energy  %.4e\n", gpuEnergy);
  printf("max position error %.2e, relative energy error %.2e\n", maxErr, energyErr);
  const bool ok = std::isfinite(meanHeight + gpuEnergy) && maxErr < 1e-4 && energyErr < 1e-2;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
