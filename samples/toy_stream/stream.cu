// Charged particles drifting in a uniform electric field: a streaming update over an array of
// particles. Each step kicks the z velocity (E field along z) and then drifts the positions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Particle {
  float x, y, z;     // position
  float vx, vy, vz;  // velocity
  float mass, charge;
};

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

__global__ void kick(Particle* p, int n, float ez, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].vz += p[i].charge / p[i].mass * ez * dt;
}

__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

// Same arithmetic as the kernels, in the same order.
static void stepOnHost(std::vector<Particle>& q, float ez, float dt) {
  for (Particle& a : q) {
    a.vz += a.charge / a.mass * ez * dt;
    a.x += a.vx * dt;
    a.y += a.vy * dt;
    a.z += a.vz * dt;
  }
}

static float uniform(unsigned& state) {  // deterministic, in [-1, 1)
  state = state * 1664525u + 1013904223u;
  return (state >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static void usage(const char* prog) {
  std::fprintf(stderr, "usage: %s [-n particles] [-steps S (>= 5)] [--tiny]\n", prog);
  std::exit(2);
}

int main(int argc, char** argv) {
  int n = 1 << 24, steps = 10;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "-n") && a + 1 < argc) n = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "-steps") && a + 1 < argc) steps = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--tiny")) n = 5000, steps = 5;
    else usage(argv[0]);
  }
  if (n <= 0 || steps < 5) usage(argv[0]);
  const float dt = 1e-3f, ez = 0.5f;

  std::vector<Particle> h(n);
  unsigned seed = 2024u;
  for (Particle& a : h) {
    a.x = uniform(seed); a.y = uniform(seed); a.z = uniform(seed);
    a.vx = uniform(seed); a.vy = uniform(seed); a.vz = uniform(seed);
    a.mass = 1.0f + 0.5f * uniform(seed);
    a.charge = uniform(seed) < 0 ? -1.0f : 1.0f;
  }
  std::vector<Particle> ref = h;

  Particle* d_p;
  check(cudaMalloc(&d_p, n * sizeof(Particle)), "cudaMalloc");
  check(cudaMemcpy(d_p, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice), "cudaMemcpy to device");

  const int block = 256, grid = (n + block - 1) / block;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> times;
  for (int s = 0; s <= steps; ++s) {  // step 0 is the warm-up, not timed
    check(cudaEventRecord(start), "cudaEventRecord");
    kick<<<grid, block>>>(d_p, n, ez, dt);
    drift<<<grid, block>>>(d_p, n, dt);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "kernels");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (s > 0) times.push_back(ms);
  }
  check(cudaGetLastError(), "kernel launch");
  check(cudaMemcpy(h.data(), d_p, n * sizeof(Particle), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  check(cudaFree(d_p), "cudaFree");

  for (int s = 0; s <= steps; ++s) stepOnHost(ref, ez, dt);
  // Relative to max(|ref|, 1): positions and velocities are O(1).
  double maxErr = 0;
  for (int i = 0; i < n; ++i) {
    const float got[6] = {h[i].x, h[i].y, h[i].z, h[i].vx, h[i].vy, h[i].vz};
    const float want[6] = {ref[i].x, ref[i].y, ref[i].z, ref[i].vx, ref[i].vy, ref[i].vz};
    for (int k = 0; k < 6; ++k)
      maxErr = std::max(maxErr, std::fabs(double(got[k]) - want[k]) / std::max(1.0, std::fabs(double(want[k]))));
  }
  const double tol = 1e-5;

  std::sort(times.begin(), times.end());
  std::printf("particles=%d steps=%d\n", n, steps);
  std::printf("kernel_ms=%.4f\n", times[times.size() / 2]);
  if (!(maxErr <= tol)) {
    std::printf("FAIL (max rel err %.3g tol %.1g)\n", maxErr, tol);
    return 1;
  }
  std::printf("PASS (max rel err %.3g tol %.1g)\n", maxErr, tol);
  return 0;
}
