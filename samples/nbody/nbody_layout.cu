// All-pairs gravitational N-body (G = 1, Plummer softening), the legacy array-of-structs code:
// one thread per body i sums the pull of every body j, then a leapfrog step moves the bodies.
// In the force loop every thread of a warp reads the same body j (a broadcast).
// Variant "layout" of samples/nbody: nbody.cu's kernels, launches, loop and arithmetic (no tiling,
// rsqrtf, the same expressions), with the bodies' fields stored the way each use wants them:
//  * position and mass, which the force loop reads together for every j (all lanes the same j),
//    form one 16-byte cluster, a float4 (x, y, z, mass): one 16-byte broadcast load per j
//    (ld.global.nc.v4.f32) instead of four 4-byte loads; the thread's own body i is read from the
//    same array (one coalesced 16-byte load per thread), and integrate rewrites x, y, z in place;
//  * velocity and acceleration, read and written per body i only (force writes, integrate), are
//    SoA: one float array per component, every access coalesced, no padding.
// The host keeps nbody.cu's Body records (initial state, checks) and converts them at the copies.
#include "../common/bench.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char* kVariant = "layout";

// Host-side record (initial state, checks), as in nbody.cu.
struct Body {
  float x, y, z;  // position
  float mass;
  float vx, vy, vz;  // velocity (leapfrog: lives at half steps)
  float ax, ay, az;  // acceleration from the last force evaluation
};

// The device arrays.
struct Bodies {
  float4* pos;          // (x, y, z, mass): position and mass, one 16-byte cluster per body
  float *vx, *vy, *vz;  // velocity (leapfrog: lives at half steps)
  float *ax, *ay, *az;  // acceleration from the last force evaluation
};

// a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2); j == i adds exactly 0.
__global__ void computeForces(const float4* __restrict__ pos, float* __restrict__ axOut, float* __restrict__ ayOut,
                              float* __restrict__ azOut, int n, float eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 bi = pos[i];
  float xi = bi.x, yi = bi.y, zi = bi.z;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float4 bj = pos[j];  // x, y, z, mass of body j: one 16-byte load, the same address in every lane
    float dx = bj.x - xi;
    float dy = bj.y - yi;
    float dz = bj.z - zi;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv = rsqrtf(r2);
    float s = bj.w * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  axOut[i] = ax;
  ayOut[i] = ay;
  azOut[i] = az;
}

// Leapfrog (kick-drift): v(t+dt/2) = v(t-dt/2) + a(t) dt, x(t+dt) = x(t) + v(t+dt/2) dt.
// __restrict__: the arrays are distinct, so vx[i] is not reloaded after the stores to vy[i], vz[i].
__global__ void integrate(float4* __restrict__ pos, float* __restrict__ vx, float* __restrict__ vy,
                          float* __restrict__ vz, const float* __restrict__ ax, const float* __restrict__ ay,
                          const float* __restrict__ az, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vx[i] += ax[i] * dt;
  vy[i] += ay[i] * dt;
  vz[i] += az[i] * dt;
  float4 p = pos[i];  // the whole cluster: one 16-byte load and store, the mass written back unchanged
  p.x += vx[i] * dt;
  p.y += vy[i] * dt;
  p.z += vz[i] * dt;
  pos[i] = p;
}

// ---- host side --------------------------------------------------------------------------------

static const float kEps2 = 4e-4f;  // softening length 0.02 (unit sphere, unit total mass)
static const float kDt = 1e-3f;    // the dynamical time of the sphere is about 1

static void usage(const char* why) {
  std::fprintf(stderr,
               "usage: sample_nbody_%s [--tiny | --size tiny|small|medium|large] [--n BODIES] [--steps STEPS]\n"
               "  sizes (bodies x steps): tiny 1024 x 2, small 16384 x 4, medium 131072 x 10 (default),\n"
               "  large 262144 x 10; --n and --steps override the size; BODIES in [2, 4194304],\n"
               "  STEPS in [1, 1000]\n",
               kVariant);
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

static double uniform01(uint64_t& s) {  // 64-bit LCG, top 53 bits
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

// Bodies uniform in the unit sphere, masses in [0.5, 1.5] scaled to total 1, random velocities
// of about 0.3 with the centre-of-mass velocity removed. Same sequence in all three variants.
static void initBodies(std::vector<Body>& b) {
  const int n = (int)b.size();
  uint64_t s = 12345;
  std::vector<double> m(n), v(3 * (size_t)n);
  double mtot = 0, p[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    double x, y, z;
    do {
      x = 2 * uniform01(s) - 1, y = 2 * uniform01(s) - 1, z = 2 * uniform01(s) - 1;
    } while (x * x + y * y + z * z > 1.0);
    b[i].x = (float)x, b[i].y = (float)y, b[i].z = (float)z;
    m[i] = 0.5 + uniform01(s);
    mtot += m[i];
    for (int k = 0; k < 3; ++k) v[3 * i + k] = 0.3 * (2 * uniform01(s) - 1), p[k] += m[i] * v[3 * i + k];
  }
  for (int i = 0; i < n; ++i) {
    b[i].mass = (float)(m[i] / mtot);
    b[i].vx = (float)(v[3 * i] - p[0] / mtot);
    b[i].vy = (float)(v[3 * i + 1] - p[1] / mtot);
    b[i].vz = (float)(v[3 * i + 2] - p[2] / mtot);
    b[i].ax = b[i].ay = b[i].az = 0.0f;
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
struct StepErrors {
  double accel, vel, pos;
};
static const double kTolAccel = 1e-4, kTolStep = 1e-5, kTolMomentum = 1e-5;

static StepErrors checkOneStep(const std::vector<Body>& before, const std::vector<Body>& after) {
  const int n = (int)before.size(), K = n < 256 ? n : 256;
  StepErrors e = {0, 0, 0};
  double sumV2 = 0, sumX2 = 0;
  std::vector<double> dv(K), dx(K);
  for (int k = 0; k < K; ++k) {
    const int i = (int)((long long)k * n / K);
    const Body& bi = before[i];
    double a[3] = {0, 0, 0}, S = 0;
    for (int j = 0; j < n; ++j) {
      const double d[3] = {(double)before[j].x - bi.x, (double)before[j].y - bi.y, (double)before[j].z - bi.z};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const double f = before[j].mass / ((r2 + kEps2) * std::sqrt(r2 + kEps2));
      for (int c = 0; c < 3; ++c) a[c] += f * d[c];
      S += f * std::sqrt(r2);
    }
    const double v[3] = {bi.vx + a[0] * kDt, bi.vy + a[1] * kDt, bi.vz + a[2] * kDt};
    const double x[3] = {bi.x + v[0] * kDt, bi.y + v[1] * kDt, bi.z + v[2] * kDt};
    const Body& g = after[i];
    e.accel = std::fmax(e.accel, finiteOrInf(dist(g.ax, g.ay, g.az, a[0], a[1], a[2]) / S));
    dv[k] = dist(g.vx, g.vy, g.vz, v[0], v[1], v[2]);
    dx[k] = dist(g.x, g.y, g.z, x[0], x[1], x[2]);
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
static double checkMomentum(const std::vector<Body>& before, const std::vector<Body>& after) {
  double p[3] = {0, 0, 0}, moved = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const double d[3] = {(double)after[i].vx - before[i].vx, (double)after[i].vy - before[i].vy,
                         (double)after[i].vz - before[i].vz};
    for (int c = 0; c < 3; ++c) p[c] += before[i].mass * d[c];
    moved += before[i].mass * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  const double rel = finiteOrInf(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / moved);
  std::printf("check: momentum over the timed steps: |dP| / sum m|dv| = %.3g (tol %.0e)\n", rel, kTolMomentum);
  return rel;
}

// Host records to the device layout and back.
static void upload(const Bodies& d, const std::vector<Body>& h) {
  const int n = (int)h.size();
  std::vector<float4> pos(n);
  std::vector<float> v[6];
  for (std::vector<float>& f : v) f.resize(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(h[i].x, h[i].y, h[i].z, h[i].mass);
    v[0][i] = h[i].vx, v[1][i] = h[i].vy, v[2][i] = h[i].vz, v[3][i] = h[i].ax, v[4][i] = h[i].ay, v[5][i] = h[i].az;
  }
  CUDA_CHECK(cudaMemcpy(d.pos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  float* dev[6] = {d.vx, d.vy, d.vz, d.ax, d.ay, d.az};
  for (int f = 0; f < 6; ++f) CUDA_CHECK(cudaMemcpy(dev[f], v[f].data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

static void download(const Bodies& d, std::vector<Body>& h) {
  const int n = (int)h.size();
  std::vector<float4> pos(n);
  std::vector<float> v[6];
  for (std::vector<float>& f : v) f.resize(n);
  CUDA_CHECK(cudaMemcpy(pos.data(), d.pos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  float* dev[6] = {d.vx, d.vy, d.vz, d.ax, d.ay, d.az};
  for (int f = 0; f < 6; ++f) CUDA_CHECK(cudaMemcpy(v[f].data(), dev[f], n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    h[i].x = pos[i].x, h[i].y = pos[i].y, h[i].z = pos[i].z, h[i].mass = pos[i].w;
    h[i].vx = v[0][i], h[i].vy = v[1][i], h[i].vz = v[2][i], h[i].ax = v[3][i], h[i].ay = v[4][i], h[i].az = v[5][i];
  }
}

int main(int argc, char** argv) {
  int n = 0, steps = 0;
  parseArgs(argc, argv, &n, &steps);

  std::vector<Body> h0(n), h1(n), hEnd(n);
  initBodies(h0);

  const double copyGBs = bench::copyBandwidthGBs();
  Bodies d;
  CUDA_CHECK(cudaMalloc(&d.pos, n * sizeof(float4)));
  for (float** f : {&d.vx, &d.vy, &d.vz, &d.ax, &d.ay, &d.az}) CUDA_CHECK(cudaMalloc(f, n * sizeof(float)));
  upload(d, h0);

  const int block = 256, grid = (n + block - 1) / block;
  auto run = [&](int nsteps) {
    for (int s = 0; s < nsteps; ++s) {
      computeForces<<<grid, block>>>(d.pos, d.ax, d.ay, d.az, n, kEps2);
      integrate<<<grid, block>>>(d.pos, d.vx, d.vy, d.vz, d.ax, d.ay, d.az, n, kDt);
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
  CUDA_CHECK(cudaFree(d.pos));
  for (float* f : {d.vx, d.vy, d.vz, d.ax, d.ay, d.az}) CUDA_CHECK(cudaFree(f));

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
  bench::printResult("nbody", kVariant, ms, 52.0 * n * steps, 20.0 * interactions, copyGBs, pass);
  return pass ? 0 : 1;
}
