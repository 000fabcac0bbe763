// All-pairs gravitational N-body (G = 1, Plummer softening), hand-written structure-of-arrays port
// of nbody.cu: one array per field. The force loop is unchanged: every thread of a warp still reads
// the same body j (a broadcast), now from four arrays; integrate reads and writes coalesced.
// Variant "soa" of samples/nbody.
#include "../common/bench.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Device pointers, one array of n floats per field; passed by value.
struct Bodies {
  float *x, *y, *z;     // position
  float* mass;
  float *vx, *vy, *vz;  // velocity (leapfrog: lives at half steps)
  float *ax, *ay, *az;  // acceleration from the last force evaluation
};

// a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2); j == i adds exactly 0.
__global__ void computeForces(Bodies b, int n, float eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = b.x[i], yi = b.y[i], zi = b.z[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = b.x[j] - xi;
    float dy = b.y[j] - yi;
    float dz = b.z[j] - zi;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv = rsqrtf(r2);
    float s = b.mass[j] * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  b.ax[i] = ax;
  b.ay[i] = ay;
  b.az[i] = az;
}

// Leapfrog (kick-drift): v(t+dt/2) = v(t-dt/2) + a(t) dt, x(t+dt) = x(t) + v(t+dt/2) dt.
__global__ void integrate(Bodies b, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  b.vx[i] += b.ax[i] * dt;
  b.vy[i] += b.ay[i] * dt;
  b.vz[i] += b.az[i] * dt;
  b.x[i] += b.vx[i] * dt;
  b.y[i] += b.vy[i] * dt;
  b.z[i] += b.vz[i] * dt;
}

// ---- host side --------------------------------------------------------------------------------

static const float kEps2 = 4e-4f;  // softening length 0.02 (unit sphere, unit total mass)
static const float kDt = 1e-3f;    // the dynamical time of the sphere is about 1

static void usage(const char* why) {
  std::fprintf(stderr,
               "usage: sample_nbody_soa [--tiny | --size tiny|small|medium|large] [--n BODIES] [--steps STEPS]\n"
               "  sizes (bodies x steps): tiny 1024 x 2, small 16384 x 4, medium 131072 x 10 (default),\n"
               "  large 262144 x 10; --n and --steps override the size; BODIES in [2, 4194304],\n"
               "  STEPS in [1, 1000]\n");
  if (why) std::fprintf(stderr, "error: %s\n", why);
  std::exit(2);
}
static bool parseInt(const char* s, long lo, long hi, int* out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static void parseArgs(int argc, char** argv, int* n, int* steps) {
  int sizeN = 131072, sizeSteps = 10, optN = 0, optSteps = 0;
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (!std::strcmp(arg, "-h") || !std::strcmp(arg, "--help")) usage(nullptr);
    if (!std::strcmp(arg, "--tiny")) {
      sizeN = 1024, sizeSteps = 2;
    } else if (!std::strcmp(arg, "--size") && a + 1 < argc) {
      const char* s = argv[++a];
      if (!std::strcmp(s, "tiny")) sizeN = 1024, sizeSteps = 2;
      else if (!std::strcmp(s, "small")) sizeN = 16384, sizeSteps = 4;
      else if (!std::strcmp(s, "medium")) sizeN = 131072, sizeSteps = 10;
      else if (!std::strcmp(s, "large")) sizeN = 262144, sizeSteps = 10;
      else usage("unknown size");
    } else if (!std::strcmp(arg, "--n") && a + 1 < argc) {
      if (!parseInt(argv[++a], 2, 1 << 22, &optN)) usage("BODIES must be an integer in [2, 4194304]");
    } else if (!std::strcmp(arg, "--steps") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 1000, &optSteps)) usage("STEPS must be an integer in [1, 1000]");
    } else {
      usage("unknown option or missing value");
    }
  }
  *n = optN ? optN : sizeN;
  *steps = optSteps ? optSteps : sizeSteps;
}

// Host copy of the bodies, one vector per field like the device arrays.
struct HostBodies {
  int n;
  std::vector<float> x, y, z, mass, vx, vy, vz, ax, ay, az;
  explicit HostBodies(int count)
      : n(count), x(count), y(count), z(count), mass(count), vx(count), vy(count), vz(count), ax(count),
        ay(count), az(count) {}
};

static double uniform01(uint64_t& s) {  // 64-bit LCG, top 53 bits
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

// Bodies uniform in the unit sphere, masses in [0.5, 1.5] scaled to total 1, random velocities
// of about 0.3 with the centre-of-mass velocity removed. Same sequence in all three variants.
static void initBodies(HostBodies& b) {
  const int n = b.n;
  uint64_t s = 12345;
  std::vector<double> m(n), v(3 * (size_t)n);
  double mtot = 0, p[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    double x, y, z;
    do {
      x = 2 * uniform01(s) - 1, y = 2 * uniform01(s) - 1, z = 2 * uniform01(s) - 1;
    } while (x * x + y * y + z * z > 1.0);
    b.x[i] = (float)x, b.y[i] = (float)y, b.z[i] = (float)z;
    m[i] = 0.5 + uniform01(s);
    mtot += m[i];
    for (int k = 0; k < 3; ++k) v[3 * i + k] = 0.3 * (2 * uniform01(s) - 1), p[k] += m[i] * v[3 * i + k];
  }
  for (int i = 0; i < n; ++i) {
    b.mass[i] = (float)(m[i] / mtot);
    b.vx[i] = (float)(v[3 * i] - p[0] / mtot);
    b.vy[i] = (float)(v[3 * i + 1] - p[1] / mtot);
    b.vz[i] = (float)(v[3 * i + 2] - p[2] / mtot);
    b.ax[i] = b.ay[i] = b.az[i] = 0.0f;
  }
}

static double finiteOrInf(double e) { return std::isfinite(e) ? e : INFINITY; }
static double dist(double ax, double ay, double az, double bx, double by, double bz) {
  return std::sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by) + (az - bz) * (az - bz));
}

// One step from `before` (host copy of the start state) checked against `after` (the GPU's
// result) on 256 bodies spread over the array, in double precision.
//  - acceleration: |a_gpu - a_ref| / S_i with S_i = sum_j m_j |r_ij| / (r_ij^2 + eps^2)^(3/2), the
//    sum of the magnitudes of the terms, which bounds float rounding in the n-term sum (a_i itself
//    nearly cancels near the centre of the sphere). A float emulation of this loop gives 7e-7
//    (1024 bodies) to 6e-6 (131072); rsqrtf's 2 ulp add < 1e-6; error grows like sqrt(n), so about
//    3.5e-5 at the 4M-body cap. tol 1e-4. A wrong field (swapped coordinates, i's mass) gives > 1e-2.
//  - velocity and position after the step: |got - ref| over the RMS size of the checked vectors;
//    a float step is a few rounding errors (1e-7) plus dt times the force error: tol 1e-5.
struct StepErrors { double accel, vel, pos; };
static const double kTolAccel = 1e-4, kTolStep = 1e-5, kTolMomentum = 1e-5;

static StepErrors checkOneStep(const HostBodies& before, const HostBodies& after) {
  const int n = before.n, K = n < 256 ? n : 256;
  StepErrors e = {0, 0, 0};
  double sumV2 = 0, sumX2 = 0;
  std::vector<double> dv(K), dx(K);
  for (int k = 0; k < K; ++k) {
    const int i = (int)((long long)k * n / K);
    double a[3] = {0, 0, 0}, S = 0;
    for (int j = 0; j < n; ++j) {
      const double d[3] = {(double)before.x[j] - before.x[i], (double)before.y[j] - before.y[i],
                           (double)before.z[j] - before.z[i]};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const double f = before.mass[j] / ((r2 + kEps2) * std::sqrt(r2 + kEps2));
      for (int c = 0; c < 3; ++c) a[c] += f * d[c];
      S += f * std::sqrt(r2);
    }
    const double v[3] = {before.vx[i] + a[0] * kDt, before.vy[i] + a[1] * kDt, before.vz[i] + a[2] * kDt};
    const double x[3] = {before.x[i] + v[0] * kDt, before.y[i] + v[1] * kDt, before.z[i] + v[2] * kDt};
    e.accel = std::fmax(e.accel, finiteOrInf(dist(after.ax[i], after.ay[i], after.az[i], a[0], a[1], a[2]) / S));
    dv[k] = dist(after.vx[i], after.vy[i], after.vz[i], v[0], v[1], v[2]);
    dx[k] = dist(after.x[i], after.y[i], after.z[i], x[0], x[1], x[2]);
    sumV2 += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    sumX2 += x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  }
  const double rmsV = std::sqrt(sumV2 / K), rmsX = std::sqrt(sumX2 / K);
  for (int k = 0; k < K; ++k) {
    e.vel = std::fmax(e.vel, finiteOrInf(dv[k] / rmsV));
    e.pos = std::fmax(e.pos, finiteOrInf(dx[k] / rmsX));
  }
  std::printf("check: one step, %d bodies vs double: accel %.3g (tol %.0e), vel %.3g, pos %.3g (tol %.0e)\n", K,
              e.accel, kTolAccel, e.vel, e.pos, kTolStep);
  return e;
}

// Total momentum change over the timed steps, relative to sum_i m_i |dv_i| (the momentum the forces
// moved). Pairwise forces cancel exactly in exact arithmetic (r2 is bitwise the same for i,j and
// j,i); float emulation gives 1e-8..1e-7. tol 1e-5; a force that is not antisymmetric (wrong
// mass or position field) gives > 1e-2.
static double checkMomentum(const HostBodies& before, const HostBodies& after) {
  double p[3] = {0, 0, 0}, moved = 0;
  for (int i = 0; i < before.n; ++i) {
    const double d[3] = {(double)after.vx[i] - before.vx[i], (double)after.vy[i] - before.vy[i],
                         (double)after.vz[i] - before.vz[i]};
    for (int c = 0; c < 3; ++c) p[c] += before.mass[i] * d[c];
    moved += before.mass[i] * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  const double rel = finiteOrInf(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / moved);
  std::printf("check: momentum over the timed steps: |dP| / sum m|dv| = %.3g (tol %.0e)\n", rel, kTolMomentum);
  return rel;
}

// Calls fn(device array, host vector) for each of the 10 fields.
template <class F>
static void forEachField(Bodies& d, HostBodies& h, F fn) {
  fn(d.x, h.x), fn(d.y, h.y), fn(d.z, h.z), fn(d.mass, h.mass), fn(d.vx, h.vx);
  fn(d.vy, h.vy), fn(d.vz, h.vz), fn(d.ax, h.ax), fn(d.ay, h.ay), fn(d.az, h.az);
}

static void upload(Bodies& d, HostBodies& h) {
  forEachField(d, h, [&](float*& dev, std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpy(dev, host.data(), h.n * sizeof(float), cudaMemcpyHostToDevice));
  });
}

static void download(Bodies& d, HostBodies& h) {
  forEachField(d, h, [&](float*& dev, std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpy(host.data(), dev, h.n * sizeof(float), cudaMemcpyDeviceToHost));
  });
}

int main(int argc, char** argv) {
  int n = 0, steps = 0;
  parseArgs(argc, argv, &n, &steps);

  HostBodies h0(n), h1(n), hEnd(n);
  initBodies(h0);

  const double copyGBs = bench::copyBandwidthGBs();
  Bodies d;
  forEachField(d, h0, [&](float*& dev, std::vector<float>&) { CUDA_CHECK(cudaMalloc(&dev, n * sizeof(float))); });
  upload(d, h0);

  const int block = 256, grid = (n + block - 1) / block;
  auto run = [&](int nsteps) {
    for (int s = 0; s < nsteps; ++s) {
      computeForces<<<grid, block>>>(d, n, kEps2);
      integrate<<<grid, block>>>(d, n, kDt);
    }
  };

  // Correctness: one step from the initial state.
  run(1);
  CUDA_CHECK(cudaGetLastError());
  download(d, h1);
  const StepErrors e = checkOneStep(h0, h1);

  // Timing: `steps` steps per repetition; the work of a step does not depend on the state, so the
  // bodies just keep moving from one repetition to the next.
  const double ms = bench::medianMs([&] { run(steps); });
  download(d, hEnd);
  const double mom = checkMomentum(h1, hEnd);
  forEachField(d, h0, [](float*& dev, std::vector<float>&) { CUDA_CHECK(cudaFree(dev)); });

  // The summary names the check closest to (or furthest past) its tolerance.
  const double errs[4] = {e.accel, e.vel, e.pos, mom}, tols[4] = {kTolAccel, kTolStep, kTolStep, kTolMomentum};
  int w = 0;
  bool pass = true;
  for (int c = 0; c < 4; ++c) {
    pass = pass && errs[c] <= tols[c];
    if (!(errs[c] / tols[c] <= errs[w] / tols[w])) w = c;
  }
  std::printf("nbody: %d bodies, %d steps per timed run, %.3f ms per step\n", n, steps, ms / steps);
  std::printf("check: %s (max rel err %.3g, tol %.0e)\n", pass ? "PASS" : "FAIL", errs[w], tols[w]);
  // Byte model: per body and step read x,y,z,m,vx,vy,vz and write x,y,z,vx,vy,vz = 52 bytes.
  // Flop model: 20 flops per interaction (n^2 per step, the self term included).
  const double interactions = (double)n * n * steps;
  bench::printResult("nbody", "soa", ms, 52.0 * n * steps, 20.0 * interactions, copyGBs, pass);
  return pass ? 0 : 1;
}
