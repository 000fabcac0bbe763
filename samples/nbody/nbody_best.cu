// All-pairs gravitational N-body (G = 1, Plummer softening), tuned the way seed 003 (Narumi et al.,
// 2009) describes the GPU kernel: each thread reads its i-bodies from structure-of-arrays positions
// (coalesced); the j-bodies are one float4 array (x, y, z, mass) staged tile by tile in shared
// memory, and every lane reads the same float4 of the tile (a 16-byte broadcast); the tile loop is
// unrolled, and 1/sqrt skips the denormal fix-up. Forces are written SoA. Variant "best" of
// samples/nbody.
#include "../common/bench.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Tuning knobs, measured on an H200 at the default size (threads/i-bodies per thread: ms):
// 256/1 88.9, 512/2 88.1, 256/2 90.6, 128/1 92.0, 128/2 96.0; unrolling 8..128 within 3%; 4 i-bodies
// per thread ran 25% slower than 2. One i-body per thread keeps the most threads for smaller n.
#ifndef NBODY_BLOCK
#define NBODY_BLOCK 256  // threads per block = j-bodies per shared-memory tile
#endif
#ifndef NBODY_IPT
#define NBODY_IPT 1  // i-bodies per thread (each shared-memory load feeds this many interactions)
#endif
#ifndef NBODY_UNROLL
#define NBODY_UNROLL 32  // unrolling of the tile loop
#endif
constexpr int kBlock = NBODY_BLOCK, kIpt = NBODY_IPT, kUnroll = NBODY_UNROLL;

// 1/sqrt(x) without the denormal fix-up that rsqrtf carries (an FSETP and two predicated FMULs
// around MUFU.RSQ, 3 of 15 FP32-pipe instructions per interaction): r2 >= eps2 > 0 is never
// denormal here, so the flush-to-zero form gives the same result.
__device__ __forceinline__ float rsqrtFtz(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Device state. Positions live twice, as in seed 003: SoA for the i side and the integrator, and
// packed with the mass in `jbody` for the j side; integrate() keeps the two in step.
struct Bodies {
  float *x, *y, *z;     // position (i side)
  float *vx, *vy, *vz;  // velocity (leapfrog: lives at half steps)
  float *ax, *ay, *az;  // acceleration from the last force evaluation
  float4* jbody;        // (x, y, z, mass) (j side)
};

// a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2); j == i adds exactly 0.
// Thread t of block b owns bodies b*kBlock*kIpt + t + k*kBlock, k < kIpt (coalesced reads).
__global__ void __launch_bounds__(kBlock)
    computeForces(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z,
                  const float4* __restrict__ jbody, float* __restrict__ ax, float* __restrict__ ay,
                  float* __restrict__ az, int n, float eps2) {
  __shared__ float4 tile[kBlock];
  const int i0 = blockIdx.x * (kBlock * kIpt) + threadIdx.x;
  float xi[kIpt], yi[kIpt], zi[kIpt], axi[kIpt], ayi[kIpt], azi[kIpt];
#pragma unroll
  for (int k = 0; k < kIpt; ++k) {
    const int i = i0 + k * kBlock;  // past n: a dummy body whose result is never stored
    xi[k] = i < n ? x[i] : 0.0f;
    yi[k] = i < n ? y[i] : 0.0f;
    zi[k] = i < n ? z[i] : 0.0f;
    axi[k] = ayi[k] = azi[k] = 0.0f;
  }
  for (int start = 0; start < n; start += kBlock) {  // every thread runs every tile (barriers)
    const int j = start + threadIdx.x;
    // Past n: a massless body, which adds exactly +-0 (r2 >= eps2 > 0 keeps rsqrtf finite).
    tile[threadIdx.x] = j < n ? jbody[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
#pragma unroll kUnroll
    for (int t = 0; t < kBlock; ++t) {
      const float4 b = tile[t];  // same address in every lane: one broadcast
#pragma unroll
      for (int k = 0; k < kIpt; ++k) {
        const float dx = b.x - xi[k], dy = b.y - yi[k], dz = b.z - zi[k];
        const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));  // 3 FFMA, softening folded in
        const float inv = rsqrtFtz(r2);
        const float s = b.w * inv * inv * inv;
        axi[k] += dx * s;
        ayi[k] += dy * s;
        azi[k] += dz * s;
      }
    }
    __syncthreads();  // the tile is overwritten next
  }
#pragma unroll
  for (int k = 0; k < kIpt; ++k) {
    const int i = i0 + k * kBlock;
    if (i < n) ax[i] = axi[k], ay[i] = ayi[k], az[i] = azi[k];
  }
}

// Leapfrog (kick-drift): v(t+dt/2) = v(t-dt/2) + a(t) dt, x(t+dt) = x(t) + v(t+dt/2) dt; also
// refreshes the packed j-side copy.
__global__ void integrate(Bodies b, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float vx = b.vx[i] + b.ax[i] * dt, vy = b.vy[i] + b.ay[i] * dt, vz = b.vz[i] + b.az[i] * dt;
  const float x = b.x[i] + vx * dt, y = b.y[i] + vy * dt, z = b.z[i] + vz * dt;
  b.vx[i] = vx, b.vy[i] = vy, b.vz[i] = vz;
  b.x[i] = x, b.y[i] = y, b.z[i] = z;
  float4 p = b.jbody[i];  // whole float4: coalesced, keeps the mass
  p.x = x, p.y = y, p.z = z;
  b.jbody[i] = p;
}

// ---- host side --------------------------------------------------------------------------------

static const float kEps2 = 4e-4f;  // softening length 0.02 (unit sphere, unit total mass)
static const float kDt = 1e-3f;    // the dynamical time of the sphere is about 1

static void usage(const char* why) {
  std::fprintf(stderr,
               "usage: sample_nbody_best [--tiny | --size tiny|small|medium|large] [--n BODIES] [--steps STEPS]\n"
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

// Host copy of the bodies, one vector per field.
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

// Calls fn(device array, host vector) for the 9 SoA fields (the mass lives in jbody only).
template <class F>
static void forEachField(Bodies& d, HostBodies& h, F fn) {
  fn(d.x, h.x), fn(d.y, h.y), fn(d.z, h.z), fn(d.vx, h.vx), fn(d.vy, h.vy);
  fn(d.vz, h.vz), fn(d.ax, h.ax), fn(d.ay, h.ay), fn(d.az, h.az);
}

static void upload(Bodies& d, HostBodies& h) {
  forEachField(d, h, [&](float*& dev, std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpy(dev, host.data(), h.n * sizeof(float), cudaMemcpyHostToDevice));
  });
  std::vector<float4> packed(h.n);
  for (int i = 0; i < h.n; ++i) packed[i] = make_float4(h.x[i], h.y[i], h.z[i], h.mass[i]);
  CUDA_CHECK(cudaMemcpy(d.jbody, packed.data(), h.n * sizeof(float4), cudaMemcpyHostToDevice));
}

// Downloads the bodies; returns how many packed j-side copies differ from the SoA position.
static int download(Bodies& d, HostBodies& h) {
  forEachField(d, h, [&](float*& dev, std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpy(host.data(), dev, h.n * sizeof(float), cudaMemcpyDeviceToHost));
  });
  std::vector<float4> packed(h.n);
  CUDA_CHECK(cudaMemcpy(packed.data(), d.jbody, h.n * sizeof(float4), cudaMemcpyDeviceToHost));
  int stale = 0;
  for (int i = 0; i < h.n; ++i) {
    h.mass[i] = packed[i].w;
    stale += packed[i].x != h.x[i] || packed[i].y != h.y[i] || packed[i].z != h.z[i];
  }
  return stale;
}

int main(int argc, char** argv) {
  int n = 0, steps = 0;
  parseArgs(argc, argv, &n, &steps);

  HostBodies h0(n), h1(n), hEnd(n);
  initBodies(h0);

  const double copyGBs = bench::copyBandwidthGBs();
  Bodies d;
  forEachField(d, h0, [&](float*& dev, std::vector<float>&) { CUDA_CHECK(cudaMalloc(&dev, n * sizeof(float))); });
  CUDA_CHECK(cudaMalloc(&d.jbody, n * sizeof(float4)));
  upload(d, h0);

  const int forceGrid = (n + kBlock * kIpt - 1) / (kBlock * kIpt);
  const int block = 256, grid = (n + block - 1) / block;
  auto run = [&](int nsteps) {
    for (int s = 0; s < nsteps; ++s) {
      computeForces<<<forceGrid, kBlock>>>(d.x, d.y, d.z, d.jbody, d.ax, d.ay, d.az, n, kEps2);
      integrate<<<grid, block>>>(d, n, kDt);
    }
  };

  // Correctness: one step from the initial state.
  run(1);
  CUDA_CHECK(cudaGetLastError());
  int stale = download(d, h1);
  const StepErrors e = checkOneStep(h0, h1);

  // Timing: `steps` steps per repetition; the work of a step does not depend on the state, so the
  // bodies just keep moving from one repetition to the next.
  const double ms = bench::medianMs([&] { run(steps); });
  stale += download(d, hEnd);
  const double mom = checkMomentum(h1, hEnd);
  forEachField(d, h0, [](float*& dev, std::vector<float>&) { CUDA_CHECK(cudaFree(dev)); });
  CUDA_CHECK(cudaFree(d.jbody));
  // The packed copy must match the SoA positions bit for bit (the same floats, stored twice).
  std::printf("check: packed j-side positions that differ from the SoA ones: %d (must be 0)\n", stale);

  // The summary names the check closest to (or furthest past) its tolerance.
  const double errs[4] = {e.accel, e.vel, e.pos, mom}, tols[4] = {kTolAccel, kTolStep, kTolStep, kTolMomentum};
  int w = 0;
  bool pass = stale == 0;
  for (int c = 0; c < 4; ++c) {
    pass = pass && errs[c] <= tols[c];
    if (!(errs[c] / tols[c] <= errs[w] / tols[w])) w = c;
  }
  std::printf("nbody: %d bodies, %d steps per timed run, %.3f ms per step\n", n, steps, ms / steps);
  std::printf("check: %s (max rel err %.3g, tol %.0e)\n", pass ? "PASS" : "FAIL", errs[w], tols[w]);
  // Byte model: per body and step read x,y,z,m,vx,vy,vz and write x,y,z,vx,vy,vz = 52 bytes.
  // Flop model: 20 flops per interaction (n^2 per step, the self term included).
  const double interactions = (double)n * n * steps;
  bench::printResult("nbody", "best", ms, 52.0 * n * steps, 20.0 * interactions, copyGBs, pass);
  return pass ? 0 : 1;
}
