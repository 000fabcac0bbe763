// Energy of each star as seen from a random probe order: every thread gathers one whole star
// record through an index array (a permutation), the access pattern of neighbour lists.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Star {
  float x, y, z;     // position
  float vx, vy, vz;  // velocity
  float mass;
  float radius;      // softening length
};

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

// Kinetic energy plus the potential energy in a softened point mass at the origin.
__global__ void energy(const Star* s, const int* idx, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];
    float x = s[j].x, y = s[j].y, z = s[j].z;
    float vx = s[j].vx, vy = s[j].vy, vz = s[j].vz;
    float m = s[j].mass, r = s[j].radius;
    float v2 = vx * vx + vy * vy + vz * vz;
    float r2 = x * x + y * y + z * z + r * r;
    e[i] = 0.5f * m * v2 - m / sqrtf(r2);
  }
}

static float energyOnHost(const Star& a) {
  float v2 = a.vx * a.vx + a.vy * a.vy + a.vz * a.vz;
  float r2 = a.x * a.x + a.y * a.y + a.z * a.z + a.radius * a.radius;
  return 0.5f * a.mass * v2 - a.mass / std::sqrt(r2);
}

static unsigned lcg(unsigned& state) { return state = state * 1664525u + 1013904223u; }
static float uniform(unsigned& state) { return (lcg(state) >> 8) * (2.0f / 16777216.0f) - 1.0f; }

static void usage(const char* prog) {
  std::fprintf(stderr, "usage: %s [-n stars] [-steps S (>= 5)] [--tiny]\n", prog);
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

  std::vector<Star> h(n);
  unsigned seed = 7u;
  for (Star& a : h) {
    a.x = uniform(seed); a.y = uniform(seed); a.z = uniform(seed);
    a.vx = uniform(seed); a.vy = uniform(seed); a.vz = uniform(seed);
    a.mass = 1.0f + 0.5f * uniform(seed);
    a.radius = 0.1f + 0.05f * uniform(seed);
  }
  std::vector<int> idx(n);  // Fisher-Yates shuffle of 0..n-1
  for (int i = 0; i < n; ++i) idx[i] = i;
  for (int i = n - 1; i > 0; --i) std::swap(idx[i], idx[lcg(seed) % (i + 1)]);

  Star* d_s;
  int* d_idx;
  float* d_e;
  check(cudaMalloc(&d_s, n * sizeof(Star)), "cudaMalloc");
  check(cudaMalloc(&d_idx, n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&d_e, n * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(d_s, h.data(), n * sizeof(Star), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  check(cudaMemcpy(d_idx, idx.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy to device");

  const int block = 256, grid = (n + block - 1) / block;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> times;
  for (int s = 0; s <= steps; ++s) {  // run 0 is the warm-up, not timed
    check(cudaEventRecord(start), "cudaEventRecord");
    energy<<<grid, block>>>(d_s, d_idx, d_e, n);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "kernel");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (s > 0) times.push_back(ms);
  }
  check(cudaGetLastError(), "kernel launch");
  std::vector<float> e(n);
  check(cudaMemcpy(e.data(), d_e, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  check(cudaFree(d_s), "cudaFree");
  check(cudaFree(d_idx), "cudaFree");
  check(cudaFree(d_e), "cudaFree");

  double maxErr = 0;
  for (int i = 0; i < n; ++i) {
    const double want = energyOnHost(h[idx[i]]);
    maxErr = std::max(maxErr, std::fabs(e[i] - want) / std::max(1.0, std::fabs(want)));
  }
  const double tol = 1e-5;

  std::sort(times.begin(), times.end());
  std::printf("stars=%d runs=%d\n", n, steps);
  std::printf("kernel_ms=%.4f\n", times[times.size() / 2]);
  if (!(maxErr <= tol)) {
    std::printf("FAIL (max rel err %.3g tol %.1g)\n", maxErr, tol);
    return 1;
  }
  std::printf("PASS (max rel err %.3g tol %.1g)\n", maxErr, tol);
  return 0;
}
