// Flocking boids (Reynolds' rules) in a periodic box, four flocks that ignore each other.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "flock.h"

static float uniform(unsigned long long& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return float(s >> 40) / float(1ULL << 24);
}

static float wrapHost(float d, float box) {
  if (d > 0.5f * box) return d - box;
  if (d < -0.5f * box) return d + box;
  return d;
}

// The same rules on the CPU, neighbours found through cell lists in index order.
static void referenceSteps(std::vector<Boid>& boids, const FlockRules& r, int steps) {
  const int n = int(boids.size()), side = r.cellsPerSide, cells = side * side * side;
  std::vector<int> start(cells + 1), order(n), cellOf(n);
  std::vector<Boid> next(n);
  for (int s = 0; s < steps; ++s) {
    std::fill(start.begin(), start.end(), 0);
    for (int i = 0; i < n; ++i) ++start[(cellOf[i] = cellIndex(boids[i].position(), r)) + 1];
    for (int c = 0; c < cells; ++c) start[c + 1] += start[c];
    std::vector<int> cursor(start.begin(), start.end() - 1);
    for (int i = 0; i < n; ++i) order[cursor[cellOf[i]]++] = i;
    for (int i = 0; i < n; ++i) {
      const float3 pos = boids[i].position();
      const int cx = std::min(int(pos.x / r.radius), side - 1), cy = std::min(int(pos.y / r.radius), side - 1),
                cz = std::min(int(pos.z / r.radius), side - 1);
      float3 away = make_float3(0, 0, 0), velSum = away, centreSum = away;
      int count = 0;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int c = (((cz + dz + side) % side) * side + (cy + dy + side) % side) * side + (cx + dx + side) % side;
            for (int k = start[c]; k < start[c + 1]; ++k) {
              const int j = order[k];
              if (j == i || boids[j].flock() != boids[i].flock()) continue;
              const float3 o = boids[j].position();
              const float3 d =
                  make_float3(wrapHost(o.x - pos.x, r.box), wrapHost(o.y - pos.y, r.box), wrapHost(o.z - pos.z, r.box));
              const float dist2 = dot(d, d);
              if (dist2 >= r.radius * r.radius || dist2 == 0.0f) continue;
              away = away - (1.0f / dist2) * d;
              velSum = velSum + boids[j].velocity();
              centreSum = centreSum + (pos + d);
              ++count;
            }
          }
      next[i] = boids[i];
      next[i].setVelocity(steer(boids[i].velocity(), away, velSum, centreSum, pos, count, r));
      next[i].advance(r.dt, r.box);
    }
    boids.swap(next);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(64, atoi(argv[1])) : 16384;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 6;

  FlockRules rules;
  rules.radius = 1.0f;
  rules.cellsPerSide = std::max(3, int(std::cbrt(n / 2.4f)));  // about ten flock-mates within the radius
  rules.box = rules.cellsPerSide * rules.radius;
  rules.separation = 0.05f;
  rules.alignment = 0.05f;
  rules.cohesion = 0.01f;
  rules.maxSpeed = 2.0f;
  rules.dt = 0.05f;

  std::vector<Boid> boids(n);
  unsigned long long seed = 2024;
  for (int i = 0; i < n; ++i) {
    const float3 p = make_float3(uniform(seed) * rules.box, uniform(seed) * rules.box, uniform(seed) * rules.box);
    const float3 v = make_float3(uniform(seed) - 0.5f, uniform(seed) - 0.5f, uniform(seed) - 0.5f);
    boids[i] = Boid(p, v, i % 4);
  }
  std::vector<Boid> reference = boids;

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  Boid *d_a, *d_b;
  cudaMalloc(&d_a, n * sizeof(Boid));
  cudaMalloc(&d_b, n * sizeof(Boid));
  cudaMemcpyAsync(d_a, boids.data(), n * sizeof(Boid), cudaMemcpyHostToDevice, stream);
  CellGrid grid;
  createGrid(grid, n, rules);
  Boid* d_result = simulate(d_a, d_b, n, rules, grid, steps, stream);
  cudaMemcpy(boids.data(), d_result, n * sizeof(Boid), cudaMemcpyDeviceToHost);
  destroyGrid(grid);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaStreamDestroy(stream);

  referenceSteps(reference, rules, steps);

  // Positions within 1e-3 (the box side is about 40), velocities within 1e-3.
  double maxPos = 0, maxVel = 0, speedSum = 0;
  float3 centre = make_float3(0, 0, 0);
  for (int i = 0; i < n; ++i) {
    const float3 dp = boids[i].position() - reference[i].position();
    const float3 dv = boids[i].velocity() - reference[i].velocity();
    maxPos =
        std::max(maxPos, double(std::max({std::fabs(wrapHost(dp.x, rules.box)), std::fabs(wrapHost(dp.y, rules.box)),
                                          std::fabs(wrapHost(dp.z, rules.box))})));
    maxVel = std::max(maxVel, double(std::max({std::fabs(dv.x), std::fabs(dv.y), std::fabs(dv.z)})));
    speedSum += std::sqrt(dot(boids[i].velocity(), boids[i].velocity()));
    centre = centre + (1.0f / n) * boids[i].position();
  }
  printf("boids %d, steps %d, box %.1f (%d^3 cells)\n", n, steps, rules.box, rules.cellsPerSide);
  printf("mean speed %.4f\n", speedSum / n);
  printf("centre     %.3f %.3f %.3f\n", centre.x, centre.y, centre.z);
  printf("max position error %.2e, max velocity error %.2e\n", maxPos, maxVel);
  const bool ok = std::isfinite(speedSum + centre.x + centre.y + centre.z) && maxPos < 1e-3 && maxVel < 1e-3;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
