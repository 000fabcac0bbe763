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

// Mean position of the particles and their spread (root mean square distance from the mean).
static void estimate(const std::vector<Particle>& ps, double& x, double& y, double& spread) {
  x = y = spread = 0;
  for (const Particle& p : ps) {
    x += p.x;
    y += p.y;
  }
  x /= ps.size();
  y /= ps.size();
  for (const Particle& p : ps) spread += (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y);
  spread = std::sqrt(spread / ps.size());
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

  // Resampling picks particles by comparing cumulative weights, so a last-bit difference between the
  // GPU's and the CPU's exp/log/sin/cos sends some particles to other ancestors, and the two clouds
  // then differ particle by particle: the check compares the clouds. The estimates within 0.05 of each
  // other and within 2 of the truth, the spreads within 10%.
  double gx, gy, gs, cx, cy, cs;
  estimate(gpu, gx, gy, gs);
  estimate(cpu, cx, cy, cs);
  const double estimateErr = std::max(std::fabs(gx - cx), std::fabs(gy - cy));
  const double spreadErr = std::fabs(gs - cs) / std::max(cs, 1e-12);
  const double trackingErr = std::hypot(gx - rx, gy - ry);
  printf("particles %d, %d landmarks, %d steps\n", n, m, steps);
  printf("truth    %.3f %.3f\n", rx, ry);
  printf("estimate %.3f %.3f (off by %.3f), spread %.4f\n", gx, gy, trackingErr, gs);
  printf("gpu vs cpu: estimates %.2e apart, spreads %.2e apart (relative)\n", estimateErr, spreadErr);
  const bool ok = estimateErr < 0.05 && spreadErr < 0.1 && trackingErr < 2.0;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
