// Heat conduction on an unstructured triangle mesh (cell-centred finite volumes, explicit Euler):
// a hot disc in two layers of material between a hot and a cold wall. GPU against CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "heat.h"

static float faceDistance(const Mesh& m, const Face& f) {
  const Cell& l = m.cells[f.left];
  if (f.right >= 0) {
    const Cell& r = m.cells[f.right];
    return std::fabs((r.centroid.x - l.centroid.x) * f.normal.x + (r.centroid.y - l.centroid.y) * f.normal.y);
  }
  return f.right == HOT_WALL ? l.centroid.x : 1.0f - l.centroid.x;
}

// The largest stable step: 0.4 of the smallest volume / conductance ratio.
static float stableStep(const Mesh& m) {
  std::vector<float> conductance(m.cells.size(), 0.0f);
  for (const Face& f : m.faces) {
    if (f.right == INSULATED) continue;
    const float g = m.cells[f.left].k * f.area / faceDistance(m, f);
    conductance[f.left] += g;
    if (f.right >= 0) conductance[f.right] += g;
  }
  float dt = 1e30f;
  for (size_t c = 0; c < m.cells.size(); ++c) dt = std::min(dt, m.cells[c].volume / std::max(conductance[c], 1e-30f));
  return 0.4f * dt;
}

static double referenceSolve(Mesh& m, float dt, int steps, float hot, float cold) {
  std::vector<float> flux(m.faces.size());
  for (int s = 0; s < steps; ++s) {
    for (size_t f = 0; f < m.faces.size(); ++f) {
      const Face& face = m.faces[f];
      const Cell& l = m.cells[face.left];
      float q = 0.0f;
      if (face.right >= 0) {
        const Cell& r = m.cells[face.right];
        q = 2.0f * l.k * r.k / (l.k + r.k) * (l.T - r.T) / faceDistance(m, face) * face.area;
      } else if (face.right != INSULATED) {
        q = l.k * (l.T - (face.right == HOT_WALL ? hot : cold)) / faceDistance(m, face) * face.area;
      }
      flux[f] = q;
    }
    for (size_t c = 0; c < m.cells.size(); ++c) {
      float net = 0.0f;
      for (int e = m.cellFaceStart[c]; e < m.cellFaceStart[c + 1]; ++e) {
        const int f = m.cellFaces[e];
        net += m.faces[f].left == int(c) ? -flux[f] : flux[f];
      }
      m.cells[c].T += dt * net / m.cells[c].volume;
    }
  }
  double total = 0;
  for (const Cell& c : m.cells) total += double(c.T) * c.volume;
  return total;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(4, atoi(argv[1])) : 256;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 100;
  const float hot = 1.0f, cold = 0.0f;

  Mesh gpu = buildMesh(n, n);
  Mesh cpu = gpu;
  const float dt = stableStep(gpu);
  const double initial = referenceSolve(cpu, dt, 0, hot, cold);
  const double gpuHeat = solveOnGpu(gpu, dt, steps, hot, cold);
  const double cpuHeat = referenceSolve(cpu, dt, steps, hot, cold);

  // Temperatures within 1e-5, heat content within 1e-5 relative.
  double maxErr = 0, maxT = 0;
  for (size_t c = 0; c < gpu.cells.size(); ++c) {
    maxErr = std::max(maxErr, double(std::fabs(gpu.cells[c].T - cpu.cells[c].T)));
    maxT = std::max(maxT, double(gpu.cells[c].T));
  }
  const double heatErr = std::fabs(gpuHeat - cpuHeat) / std::max(1e-30, std::fabs(cpuHeat));
  printf("mesh %d cells, %zu faces, dt %.3e, %d steps\n", int(gpu.cells.size()), gpu.faces.size(), dt, steps);
  printf("heat content %.6f (initially %.6f)\n", gpuHeat, initial);
  printf("hottest cell %.6f\n", maxT);
  printf("max temperature error %.2e, relative heat error %.2e\n", maxErr, heatErr);
  const bool ok = std::isfinite(gpuHeat) && maxErr < 1e-5 && heatErr < 1e-5;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
