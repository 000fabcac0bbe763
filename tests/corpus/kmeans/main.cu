// Weighted k-means of points drawn around random centres; the GPU result is compared with the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kmeans.h"

struct Rng {
  unsigned long long state;
  float uniform() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float(state >> 40) + 0.5f) / float(1ULL << 24);
  }
  float normal() { return std::sqrt(-2.0f * std::log(uniform())) * std::cos(6.2831853f * uniform()); }
};

// Lloyd's algorithm on the CPU, sums in double.
static int kmeansCpu(std::vector<Point>& points, std::vector<Centroid>& centroids, int iterations) {
  const int k = int(centroids.size());
  int changed = 0;
  for (int it = 0; it < iterations; ++it) {
    changed = 0;
    for (Point& p : points) {
      int best = 0;
      float bestDistance = 1e30f;
      for (int c = 0; c < k; ++c) {
        const float dx = p.pos.x - centroids[c].pos.x, dy = p.pos.y - centroids[c].pos.y,
                    dz = p.pos.z - centroids[c].pos.z;
        const float d = dx * dx + dy * dy + dz * dz;
        if (d < bestDistance) {
          bestDistance = d;
          best = c;
        }
      }
      if (p.cluster != best) ++changed;
      p.cluster = best;
    }
    std::vector<double> sx(k, 0), sy(k, 0), sz(k, 0), sw(k, 0);
    std::vector<int> members(k, 0);
    for (const Point& p : points) {
      sx[p.cluster] += double(p.weight) * p.pos.x;
      sy[p.cluster] += double(p.weight) * p.pos.y;
      sz[p.cluster] += double(p.weight) * p.pos.z;
      sw[p.cluster] += p.weight;
      ++members[p.cluster];
    }
    for (int c = 0; c < k; ++c) {
      centroids[c].sum = make_float3(sx[c], sy[c], sz[c]);
      centroids[c].weightSum = float(sw[c]);
      centroids[c].count = members[c];
      if (sw[c] > 0) centroids[c].pos = make_float3(sx[c] / sw[c], sy[c] / sw[c], sz[c] / sw[c]);
    }
  }
  return changed;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1024, atoi(argv[1])) : 400000;
  const int k = argc > 2 ? std::min(KMEANS_MAX_K, std::max(2, atoi(argv[2]))) : 32;
  const int iterations = argc > 3 ? std::max(1, atoi(argv[3])) : 10;

  // Points around k random centres in a 10-wide cube, with weights in [0.5, 1.5).
  Rng rng{7};
  std::vector<float3> truth(k);
  for (float3& t : truth) t = make_float3(10 * rng.uniform(), 10 * rng.uniform(), 10 * rng.uniform());
  Point* points;
  cudaMallocManaged(&points, size_t(n) * sizeof(Point));
  for (int i = 0; i < n; ++i) {
    const float3 t = truth[i % k];
    points[i].pos = make_float3(t.x + 0.6f * rng.normal(), t.y + 0.6f * rng.normal(), t.z + 0.6f * rng.normal());
    points[i].weight = 0.5f + rng.uniform();
    points[i].cluster = -1;
  }
  // The first k points, spread by taking every (n / k)-th, start as centroids.
  std::vector<Centroid> initial(k);
  for (int c = 0; c < k; ++c) {
    initial[c].pos = points[c * (n / k) + (c % 7)].pos;
    initial[c].sum = make_float3(0, 0, 0);
    initial[c].weightSum = 0;
    initial[c].count = 0;
  }
  std::vector<Point> cpuPoints(points, points + n);
  std::vector<Centroid> cpuCentroids = initial, gpuCentroids = initial;

  const int gpuChanged = kmeansGpu(points, n, gpuCentroids.data(), k, iterations);
  const int cpuChanged = kmeansCpu(cpuPoints, cpuCentroids, iterations);

  // Centres within 1e-3 (the data span 10), at most 0.1% of the points in another cluster.
  double maxErr = 0, inertia = 0;
  int differ = 0;
  for (int c = 0; c < k; ++c) {
    const Centroid &g = gpuCentroids[c], &r = cpuCentroids[c];
    maxErr = std::max(
        maxErr,
        double(std::max({std::fabs(g.pos.x - r.pos.x), std::fabs(g.pos.y - r.pos.y), std::fabs(g.pos.z - r.pos.z)})));
  }
  for (int i = 0; i < n; ++i) {
    if (points[i].cluster != cpuPoints[i].cluster) ++differ;
    const float3 c = gpuCentroids[points[i].cluster].pos;
    const double dx = points[i].pos.x - c.x, dy = points[i].pos.y - c.y, dz = points[i].pos.z - c.z;
    inertia += points[i].weight * (dx * dx + dy * dy + dz * dz);
  }
  printf("points %d, k %d, %d iterations\n", n, k, iterations);
  printf("moved in the last round: gpu %d, cpu %d\n", gpuChanged, cpuChanged);
  printf("weighted inertia per point %.4f\n", inertia / n);
  printf("centroid 0 at %.3f %.3f %.3f with %d points\n", gpuCentroids[0].pos.x, gpuCentroids[0].pos.y,
         gpuCentroids[0].pos.z, gpuCentroids[0].count);
  printf("max centre error %.2e, points in another cluster %d\n", maxErr, differ);
  cudaFree(points);
  const bool ok = std::isfinite(inertia) && maxErr < 1e-3 && differ <= n / 1000;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
