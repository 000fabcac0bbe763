// A robot drives a curve among landmarks; a particle filter tracks it from noisy ranges. The GPU
// filter is compared with the same filter on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pf.h"

#if !defined(__NVCC__)
#error "build with nvcc (see the Makefile)"
#endif

static const int kScanThreads = 1024;  // the GPU scan's chunking, reproduced on the CPU

static void referenceFilter(std::vector<Particle>& ps, const std::vector<float2>& landmarks,
                            const std::vector<float>& ranges, const std::vector<Control>& controls, int steps,
                            NoiseModel noise) {
  const int n = int(ps.size()), m = int(landmarks.size());
  std::vector<double> cdf(n);
  std::vector<Particle> next(n);
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) move(ps[i].x, ps[i].y, ps[i].theta, controls[s], noise, i, s);
    for (Particle& p : ps) {
      float sum = 0;
      for (int k = 0; k < m; ++k) {
        const float dx = landmarks[k].x - p.x, dy = landmarks[k].y - p.y;
        const float err = sqrtf(dx * dx + dy * dy) - ranges[s * m + k];
        sum += err * err;
      }
      p.weight = expf(-0.5f * sum / (noise.range * noise.range));
    }
    const int chunk = (n + kScanThreads - 1) / kScanThreads;
    double offset = 0;
    for (int t = 0; t < kScanThreads; ++t) {
      double running = 0;
      for (int i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) {
        running += ps[i].weight;
        cdf[i] = running + offset;
      }
      offset += running;
    }
    const float start = uniform01(0xC0FFEEu, s);
    for (int j = 0; j < n; ++j) {
      const double target = (j + double(start)) / n * cdf[n - 1];
      const int pick = int(std::lower_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
      next[j] = ps[std::min(pick, n - 1)];
      next[j].weight = 1.0f;
    }
    ps.swap(next);
  }
}

static void estimate(const std::vector<Particle>& ps, double& x, double& y) {
  x = y = 0;
  for (const Particle& p : ps) {
    x += p.x;
    y += p.y;
  }
  x /= ps.size();
  y /= ps.size();
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1024, atoi(argv[1])) : 65536;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 25;
  const int m = 16;
  const NoiseModel noise = {0.05f, 0.01f, 1.0f};

  // Landmarks on a 100 x 100 field; the robot starts in the middle heading east.
  std::vector<float2> landmarks(m);
  for (int k = 0; k < m; ++k) landmarks[k] = make_float2(100 * uniform01(77, 2 * k), 100 * uniform01(77, 2 * k + 1));
  std::vector<Control> controls(steps);
  std::vector<float> ranges(size_t(steps) * m);
  float rx = 50, ry = 50, rtheta = 0;
  for (int s = 0; s < steps; ++s) {
    controls[s] = {1.0f, 0.05f};
    rtheta += controls[s].turn;
    rx += controls[s].speed * cosf(rtheta);
    ry += controls[s].speed * sinf(rtheta);
    for (int k = 0; k < m; ++k)
      ranges[s * m + k] = std::hypot(landmarks[k].x - rx, landmarks[k].y - ry) + noise.range * gaussian(99, s * m + k);
  }

  std::vector<Particle> gpu(n);
  for (int i = 0; i < n; ++i)
    gpu[i] = {50 + gaussian(i, 1000001), 50 + gaussian(i, 1000002), 0.05f * gaussian(i, 1000003), 1.0f};
  std::vector<Particle> cpu = gpu;

  runFilter(gpu.data(), n, landmarks.data(), m, ranges.data(), controls.data(), steps, noise);
  referenceFilter(cpu, landmarks, ranges, controls, steps, noise);

  // The estimates within 0.05 of each other and within 2 of the truth; at most 1% of the particles
  // farther than 1e-3 from their CPU counterpart.
  double gx, gy, cx, cy;
  estimate(gpu, gx, gy);
  estimate(cpu, cx, cy);
  int apart = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(gpu[i].x - cpu[i].x) > 1e-3f || std::fabs(gpu[i].y - cpu[i].y) > 1e-3f) ++apart;
  const double estimateErr = std::max(std::fabs(gx - cx), std::fabs(gy - cy));
  const double trackingErr = std::hypot(gx - rx, gy - ry);
  printf("particles %d, %d landmarks, %d steps\n", n, m, steps);
  printf("truth    %.3f %.3f\n", rx, ry);
  printf("estimate %.3f %.3f (off by %.3f)\n", gx, gy, trackingErr);
  printf("gpu vs cpu: estimate %.2e apart, %d particles apart\n", estimateErr, apart);
  const bool ok = estimateErr < 0.05 && trackingErr < 2.0 && apart <= n / 100;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
