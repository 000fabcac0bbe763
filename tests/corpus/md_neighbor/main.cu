// Lennard-Jones liquid (FCC start, melting) with velocity Verlet and a Verlet neighbour list rebuilt
// every few steps; the forces at the end are checked against a direct cell search on the CPU.
// usage: md_neighbor [fcc cells per side = 32] [steps = 2000]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"
#include "md_kernels.cuh"
#include "neighbor_list.h"

namespace {

constexpr int kThreads = 128;
constexpr int kRebuildEvery = 10;
constexpr int kCapacity = 160;

class Random {
 public:
  explicit Random(unsigned long long seed) : state_(seed) {}
  // Uniform in [0, 1).
  double uniform() {
    state_ += 0x9e3779b97f4a7c15ULL;
    unsigned long long z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (z >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  unsigned long long state_;
};

// FCC lattice with a small jitter, velocities uniform at temperature ~1 with zero total momentum.
void initialState(int cellsPerSide, float spacing, const Box& box, std::vector<float4>& pos, std::vector<float4>& vel) {
  const float basis[4][3] = {{0.25f, 0.25f, 0.25f}, {0.75f, 0.75f, 0.25f}, {0.75f, 0.25f, 0.75f}, {0.25f, 0.75f, 0.75f}};
  Random random(20240611);
  double px = 0, py = 0, pz = 0;
  for (int z = 0; z < cellsPerSide; ++z)
    for (int y = 0; y < cellsPerSide; ++y)
      for (int x = 0; x < cellsPerSide; ++x)
        for (int b = 0; b < 4; ++b) {
          const float jitter = 0.03f;
          pos.push_back(make_float4(box.wrap((x + basis[b][0]) * spacing + jitter * float(random.uniform() - 0.5)),
                                    box.wrap((y + basis[b][1]) * spacing + jitter * float(random.uniform() - 0.5)),
                                    box.wrap((z + basis[b][2]) * spacing + jitter * float(random.uniform() - 0.5)),
                                    0.f));
          const float s = std::sqrt(3.f);
          const float4 v = make_float4(s * float(2 * random.uniform() - 1), s * float(2 * random.uniform() - 1),
                                       s * float(2 * random.uniform() - 1), 1.f);
          px += v.x;
          py += v.y;
          pz += v.z;
          vel.push_back(v);
        }
  const double n = double(vel.size());
  for (float4& v : vel) {
    v.x -= float(px / n);
    v.y -= float(py / n);
    v.z -= float(pz / n);
  }
}

// Force and energy on atom i from every atom within the cut-off, found through cells, in double.
struct ReferenceForce {
  double v, x, y, z;
  double scale;       // sum of the pair terms' magnitudes, for the tolerance
  double nearCutoff;  // sum of the magnitudes of pairs so close to the cut-off that float may count them or not
};

class ReferenceCells {
 public:
  ReferenceCells(const std::vector<float4>& pos, const Box& box, float rcut) : pos_(pos), box_(box) {
    grid_.cellsPerSide = std::max(3, int(std::floor(box.length / rcut)));
    grid_.cellSize = box.length / grid_.cellsPerSide;
    bins_.resize(grid_.cells());
    for (int i = 0; i < int(pos.size()); ++i)
      bins_[grid_.index(grid_.coord(pos[i].x), grid_.coord(pos[i].y), grid_.coord(pos[i].z))].push_back(i);
  }

  ReferenceForce force(int i, const LJParams& lj) const {
    ReferenceForce f = {0, 0, 0, 0, 0, 0};
    const float4 pi = pos_[i];
    const int cx = grid_.coord(pi.x), cy = grid_.coord(pi.y), cz = grid_.coord(pi.z);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          for (int j : bins_[grid_.index(cx + dx, cy + dy, cz + dz)]) {
            if (j == i) continue;
            const double rx = box_.minimumImage(pi.x - pos_[j].x);
            const double ry = box_.minimumImage(pi.y - pos_[j].y);
            const double rz = box_.minimumImage(pi.z - pos_[j].z);
            const double r2 = rx * rx + ry * ry + rz * rz;
            const bool edge = std::fabs(r2 - lj.rcut2) < 1e-4 * lj.rcut2;
            if (r2 >= lj.rcut2 && !edge) continue;
            const double s2 = lj.sigma2 / r2, s6 = s2 * s2 * s2;
            const double fr = 24.0 * lj.epsilon * (2.0 * s6 * s6 - s6) / r2;
            const double magnitude = std::fabs(fr) * std::sqrt(r2);
            if (edge) {
              f.nearCutoff += magnitude + std::fabs(0.5 * (4.0 * lj.epsilon * (s6 * s6 - s6) - lj.shift));
              if (r2 >= lj.rcut2) continue;
            }
            f.v += 0.5 * (4.0 * lj.epsilon * (s6 * s6 - s6) - lj.shift);
            f.x += fr * rx;
            f.y += fr * ry;
            f.z += fr * rz;
            f.scale += magnitude;
          }
    return f;
  }

 private:
  const std::vector<float4>& pos_;
  Box box_;
  CellGrid grid_;
  std::vector<std::vector<int>> bins_;
};

double sum(const std::vector<float>& values) {
  double total = 0;
  for (float v : values) total += v;
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const int cellsPerSide = argc > 1 ? std::atoi(argv[1]) : 32;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (cellsPerSide < 6 || steps < 1) {
    std::fprintf(stderr, "usage: %s [fcc cells per side >= 6] [steps >= 1]\n", argv[0]);
    return 2;
  }
  const int n = 4 * cellsPerSide * cellsPerSide * cellsPerSide;
  const float density = 0.8f, dt = 0.004f, rcut = 2.5f, skin = 0.4f;
  const float spacing = std::cbrt(4.f / density);
  const Box box{cellsPerSide * spacing};
  const LJParams lj(1.f, 1.f, rcut);

  std::vector<float4> pos, vel;
  initialState(cellsPerSide, spacing, box, pos, vel);
  double initialKinetic = 0;
  for (const float4& v : vel) initialKinetic += 0.5 * v.w * (double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);

  float4 *d_pos = nullptr, *d_vel = nullptr;
  Force* d_force = nullptr;
  float* d_kinetic = nullptr;
  CHECK(cudaMalloc(&d_pos, sizeof(float4) * n));
  CHECK(cudaMalloc(&d_vel, sizeof(float4) * n));
  CHECK(cudaMalloc(&d_force, sizeof(Force) * n));
  CHECK(cudaMalloc(&d_kinetic, sizeof(float) * n));
  CHECK(cudaMemcpy(d_pos, pos.data(), sizeof(float4) * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vel, vel.data(), sizeof(float4) * n, cudaMemcpyHostToDevice));

  NeighborList neighbors(n, box, rcut + skin, kCapacity);
  const int blocks = (n + kThreads - 1) / kThreads;
  std::vector<Force> force(n);

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  neighbors.build(d_pos);
  computeForces<<<blocks, kThreads>>>(d_pos, n, box, lj, neighbors.counts(), neighbors.list(), neighbors.stride(),
                                      d_force);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(force.data(), d_force, sizeof(Force) * n, cudaMemcpyDeviceToHost));
  double initialPotential = 0;
  for (const Force& f : force) initialPotential += f.v;

  for (int step = 1; step <= steps; ++step) {
    kickDrift<<<blocks, kThreads>>>(d_pos, d_vel, d_force, n, dt, box);
    if (step % kRebuildEvery == 0) neighbors.build(d_pos);
    computeForces<<<blocks, kThreads>>>(d_pos, n, box, lj, neighbors.counts(), neighbors.list(), neighbors.stride(),
                                        d_force);
    kick<<<blocks, kThreads>>>(d_vel, d_force, n, dt, d_kinetic);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<float> kinetic(n);
  CHECK(cudaMemcpy(force.data(), d_force, sizeof(Force) * n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(kinetic.data(), d_kinetic, sizeof(float) * n, cudaMemcpyDeviceToHost));
  double finalPotential = 0;
  for (const Force& f : force) finalPotential += f.v;
  const double finalKinetic = sum(kinetic);
  const int longest = neighbors.overflow();

  // Forces on the final positions from a fresh list, against the CPU for every 16th atom.
  neighbors.build(d_pos);
  computeForces<<<blocks, kThreads>>>(d_pos, n, box, lj, neighbors.counts(), neighbors.list(), neighbors.stride(),
                                      d_force);
  CHECK(cudaGetLastError());
  std::vector<int> counts(n);
  CHECK(cudaMemcpy(force.data(), d_force, sizeof(Force) * n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(pos.data(), d_pos, sizeof(float4) * n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(counts.data(), neighbors.counts(), sizeof(int) * n, cudaMemcpyDeviceToHost));
  long long listed = 0;
  for (int c : counts) listed += c;

  const ReferenceCells reference(pos, box, rcut);
  int checked = 0, wrong = 0;
  double maxError = 0;
  for (int i = 0; i < n; i += 16, ++checked) {
    const ReferenceForce r = reference.force(i, lj);
    const Force& g = force[i];
    const double tol = 1e-4 * r.scale + r.nearCutoff + 1e-5;
    const double err = std::max({std::fabs(g.x - r.x), std::fabs(g.y - r.y), std::fabs(g.z - r.z)});
    maxError = std::max(maxError, err / (r.scale + 1e-30));
    if (!(err <= tol) || !(std::fabs(g.v - r.v) <= tol)) {
      if (wrong < 5)
        std::printf("atom %d: gpu %.6f %.6f %.6f %.6f, cpu %.6f %.6f %.6f %.6f\n", i, g.v, g.x, g.y, g.z, r.v, r.x,
                    r.y, r.z);
      ++wrong;
    }
  }

  const double e0 = (initialPotential + initialKinetic) / n, e1 = (finalPotential + finalKinetic) / n;
  const double drift = std::fabs(e1 - e0) / std::fabs(e0);
  std::printf("atoms %d, box %.4f, %d^3 cells, %d steps, %d list builds\n", n, box.length,
              neighbors.grid().cellsPerSide, steps, neighbors.builds());
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("neighbours per atom %.3f\n", double(listed) / n);
  std::printf("potential energy per atom: initial %.6f final %.6f\n", initialPotential / n, finalPotential / n);
  std::printf("kinetic energy per atom: initial %.6f final %.6f\n", initialKinetic / n, finalKinetic / n);
  std::printf("total energy per atom: initial %.6f final %.6f (relative drift %.2e)\n", e0, e1, drift);
  std::printf("forces of %d atoms against the CPU: %d differ, max relative error %.2e\n", checked, wrong, maxError);
  if (longest > 0) std::printf("neighbour list overflow: %d > %d\n", longest, kCapacity);
  const bool passed = wrong == 0 && longest == 0 && drift < 1e-2 && std::isfinite(e1);
  std::printf("%s (forces within 1e-4 of the sum of the pair terms' magnitudes, energy drift below 1e-2)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");

  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cudaFree(d_kinetic);
  cudaFree(d_force);
  cudaFree(d_vel);
  cudaFree(d_pos);
  return passed ? 0 : 1;
}
