// cfd: cell-centred finite-volume solver for the 3-D compressible Euler equations on an
// unstructured tetrahedral mesh, after the method of Rodinia's cfd (euler3d): per element a
// central flux over its 4 faces with scalar artificial dissipation, wall and far-field boundary
// faces, local time stepping and 3 Runge-Kutta stages per iteration.
// Layout-only variant: the fastest layout of cfd.cu's data found by hand, with everything else as
// in the AoS original (the same three kernels, blocks of 256 and 128 threads, the same arithmetic
// in the same order, neighbours in face order). Only where the fields live and how they are
// loaded changes:
//  * the 5 conserved variables, which compute_flux gathers through the neighbour index at
//    unrelated addresses, are one __align__(32) record per element: {density, momentum} as a
//    float4 and the energy in a second float4 padded to the sector, so a neighbour costs exactly
//    one 32-byte sector (5 separate arrays: 5 sectors; the packed 88-byte Element: 1-2 sectors
//    and three times the footprint). time_step writes the record whole (full-sector stores);
//  * what only the element itself reads is streamed, coalesced, as 16-byte vectors: the 4
//    neighbour indices as one int4, the 4x3 face normals as 3 variable-major float4 arrays
//    (normal[q * n + i]), the area its own array;
//  * the RK base state and the fluxes (Conserved, 20 bytes, streamed) as a float4 array
//    {density, momentum} plus a float array (energy): 20 bytes per element, no padding;
//  * data a kernel only reads goes through the read-only path (__ldg).
// This is cfd_best.cu's layout without its __launch_bounds__ (they change no register count); both
// run equally fast (docs/results/ceiling-h200.md).
#include "../common/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

constexpr int kNnb = 4;        // faces (and neighbours) of a tetrahedron
constexpr int kWall = -1;      // neighbour index of a solid-wall face
constexpr int kFarField = -2;  // neighbour index of a far-field face
constexpr int kRk = 3;         // Runge-Kutta stages per iteration
constexpr double kGamma = 1.4, kSmoothing = 0.2, kCfl = 0.5;

static const char* kVariant = "layout";

struct __align__(32) State {  // the gathered cluster: one 32-byte sector
  float4 dm;                  // density, momentum x, y, z
  float4 e;                   // energy; y, z, w unused (padding to the sector)
};

struct Geometry {  // read by the element itself only: variable-major vectors
  int4* neighbor;  // the 4 neighbours (or kWall / kFarField) of element i
  float4* normal;  // its 4x3 scaled outward normals as 3 float4: normal[q * n + i]
  float* area;     // surface area (sum of the face areas): sets the local time step
};

struct Conserved4 {  // RK base state and fluxes, streamed: (density, momentum) and energy
  float4* dm;
  float* e;
};

// ---- Flux arithmetic, shared by the kernels (float) and the CPU reference (double). ----------
template <typename T>
struct Prim {
  T vx, vy, vz, p, speed, c;  // velocity, pressure, |velocity|, speed of sound
};

template <typename T>
__host__ __device__ inline Prim<T> primitives(const T u[5]) {
  Prim<T> q;
  const T inv = T(1) / u[0];
  q.vx = u[1] * inv, q.vy = u[2] * inv, q.vz = u[3] * inv;
  const T speed_sqd = q.vx * q.vx + q.vy * q.vy + q.vz * q.vz;
  q.p = T(kGamma - 1) * (u[4] - T(0.5) * u[0] * speed_sqd);
  q.speed = sqrt(speed_sqd);
  q.c = sqrt(T(kGamma) * q.p / u[0]);
  return q;
}

// f += w * (F(u) . n), the physical flux of state u through a face of normal n.
template <typename T>
__host__ __device__ inline void addNormalFlux(T w, const T u[5], const Prim<T>& q, T nx, T ny, T nz, T f[5]) {
  const T vn = q.vx * nx + q.vy * ny + q.vz * nz;
  f[0] += w * (u[0] * vn);
  f[1] += w * (u[1] * vn + q.p * nx);
  f[2] += w * (u[2] * vn + q.p * ny);
  f[3] += w * (u[3] * vn + q.p * nz);
  f[4] += w * ((u[4] + q.p) * vn);
}

// Interior face: central flux plus dissipation scaled by the local wave speeds.
template <typename T>
__host__ __device__ inline void interiorFace(const T ui[5], const Prim<T>& qi, const T un[5], T nx, T ny, T nz,
                                             T f[5]) {
  const Prim<T> qn = primitives(un);
  const T len = sqrt(nx * nx + ny * ny + nz * nz);
  const T diss = T(0.5 * kSmoothing) * len * (qi.speed + qn.speed + qi.c + qn.c);
  for (int v = 0; v < 5; ++v) f[v] -= diss * (ui[v] - un[v]);
  addNormalFlux(T(-0.5), ui, qi, nx, ny, nz, f);
  addNormalFlux(T(-0.5), un, qn, nx, ny, nz, f);
}

template <typename T>
__host__ __device__ inline void wallFace(const Prim<T>& qi, T nx, T ny, T nz, T f[5]) {
  f[1] -= qi.p * nx, f[2] -= qi.p * ny, f[3] -= qi.p * nz;  // only the pressure acts on a wall
}

template <typename T>
__host__ __device__ inline void farFieldFace(const T ui[5], const Prim<T>& qi, const T* ff, const Prim<T>& qff, T nx,
                                             T ny, T nz, T f[5]) {
  addNormalFlux(T(-0.5), ui, qi, nx, ny, nz, f);
  addNormalFlux(T(-0.5), ff, qff, nx, ny, nz, f);
}

// ---- Synthetic mesh: every cube of a C^3 grid split into 6 tetrahedra (Kuhn), vertices gently
// displaced, element numbers shuffled so that neighbours sit at unrelated indices. --------------
struct HostMesh {
  int n = 0;
  std::vector<int> nb;     // 4 per element
  std::vector<float> nrm;  // 12 per element
  std::vector<float> area;
  std::vector<float> u0;                      // initial conserved state, 5 per element
  long long interior = 0, wall = 0, far = 0;  // element-face pairs of each kind
};

static void farFieldState(double u[5]) {  // Mach 0.5, 10 degrees towards the y walls, c = 1
  const double rho = 1.4, p = 1.0, mach = 0.5, alpha = 10.0 * M_PI / 180.0;
  const double vx = mach * std::cos(alpha), vy = mach * std::sin(alpha);
  u[0] = rho, u[1] = rho * vx, u[2] = rho * vy, u[3] = 0.0;
  u[4] = p / (kGamma - 1) + 0.5 * rho * (vx * vx + vy * vy);
}

static HostMesh buildMesh(int C) {
  static const int P[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  auto tet = [](int a, int b, int c) { return 2 * a + (b > c); };  // index of (a, b, c) in P
  HostMesh m;
  m.n = 6 * C * C * C;
  std::vector<int> perm(m.n);
  std::iota(perm.begin(), perm.end(), 0);
  unsigned long long s = 0x2545F4914F6CDD1DULL;
  for (int i = m.n - 1; i > 0; --i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(perm[i], perm[(s >> 33) % (unsigned long long)(i + 1)]);
  }
  m.nb.resize(4 * (size_t)m.n), m.nrm.resize(12 * (size_t)m.n), m.area.resize(m.n), m.u0.resize(5 * (size_t)m.n);
  const double h = 1.0 / C, d = 0.1, tau = 2 * M_PI / C;
  auto position = [&](const int v[3], double x[3]) {
    x[0] = h * (v[0] + d * std::sin(tau * v[1]) * std::sin(tau * v[2]));
    x[1] = h * (v[1] + d * std::sin(tau * v[2]) * std::sin(tau * v[0]));
    x[2] = h * (v[2] + d * std::sin(tau * v[0]) * std::sin(tau * v[1]));
  };
  auto vertexId = [&](const int v[3]) { return v[0] + (C + 1LL) * (v[1] + (C + 1LL) * v[2]); };
  double ff[5];
  farFieldState(ff);
  for (int k = 0; k < C; ++k)
    for (int j = 0; j < C; ++j)
      for (int i = 0; i < C; ++i) {
        const int cube[3] = {i, j, k}, cid = i + C * (j + C * k);
        for (int t = 0; t < 6; ++t) {
          const int a = P[t][0], b = P[t][1], c = P[t][2], e = perm[6 * cid + t];
          int v[4][3] = {{i, j, k}, {i, j, k}, {i, j, k}, {i + 1, j + 1, k + 1}};
          v[1][a] += 1, v[2][a] += 1, v[2][b] += 1;  // path 000 -> e_a -> e_a+e_b -> 111
          double x[4][3], centre[3] = {0, 0, 0};
          for (int q = 0; q < 4; ++q) {
            position(v[q], x[q]);
            for (int r = 0; r < 3; ++r) centre[r] += 0.25 * x[q][r];
          }
          float area = 0;
          for (int f = 0; f < 4; ++f) {  // face f lies opposite vertex f
            int other[3] = {cube[0], cube[1], cube[2]}, axis = -1, ot = -1;
            if (f == 0) other[a] += 1, axis = a, ot = tet(b, c, a);       // on the plane x_a = 1
            else if (f == 3) other[c] -= 1, axis = c, ot = tet(c, a, b);  // on the plane x_c = 0
            else ot = f == 1 ? tet(b, a, c) : tet(a, c, b);               // inside the cube
            int nbr;
            if (axis >= 0 && (other[axis] < 0 || other[axis] >= C)) nbr = axis == 1 ? kWall : kFarField;
            else nbr = perm[6 * (other[0] + C * (other[1] + C * other[2])) + ot];
            (nbr >= 0 ? m.interior : nbr == kWall ? m.wall : m.far)++;
            // Normal from the face's vertices in global-id order, so that both elements sharing
            // the face get exactly opposite vectors.
            int fv[3], q = 0;
            for (int r = 0; r < 4; ++r)
              if (r != f) fv[q++] = r;
            std::sort(fv, fv + 3, [&](int p1, int p2) { return vertexId(v[p1]) < vertexId(v[p2]); });
            double e1[3], e2[3], n[3], dot = 0;
            for (int r = 0; r < 3; ++r) e1[r] = x[fv[1]][r] - x[fv[0]][r], e2[r] = x[fv[2]][r] - x[fv[0]][r];
            for (int r = 0; r < 3; ++r) {  // half the cross product
              const int r1 = (r + 1) % 3, r2 = (r + 2) % 3;
              n[r] = 0.5 * (e1[r1] * e2[r2] - e1[r2] * e2[r1]);
            }
            for (int r = 0; r < 3; ++r) dot += n[r] * (x[fv[0]][r] - x[f][r]);  // outward: away from vertex f
            const double sign = dot > 0 ? 1.0 : -1.0;
            for (int r = 0; r < 3; ++r) m.nrm[12 * (size_t)e + 3 * f + r] = float(sign * n[r]);
            m.nb[4 * (size_t)e + f] = nbr;
            area += float(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
          }
          m.area[e] = area;
          // Free stream plus a density and pressure pulse in the middle of the box.
          const double r2 = (centre[0] - 0.5) * (centre[0] - 0.5) + (centre[1] - 0.5) * (centre[1] - 0.5) +
                            (centre[2] - 0.5) * (centre[2] - 0.5);
          const double g = std::exp(-r2 / (2 * 0.15 * 0.15)), rho = ff[0] * (1 + 0.2 * g);
          const double vx = ff[1] / ff[0], vy = ff[2] / ff[0], p = 1.0 + 0.5 * g;
          const double u[5] = {rho, rho * vx, rho * vy, 0.0, p / (kGamma - 1) + 0.5 * rho * (vx * vx + vy * vy)};
          for (int r = 0; r < 5; ++r) m.u0[5 * (size_t)e + r] = float(u[r]);
        }
      }
  return m;
}

// Double-precision reference for the elements in `samples` after `iters` iterations. An element
// is only advanced through the stages whose result can still reach a sample.
static std::vector<double> reference(const HostMesh& m, const std::vector<int>& samples, int iters) {
  const int S = kRk * iters;
  std::vector<int> need(m.n, -1), loc(m.n, -1), ids;
  for (int i : samples) need[i] = S;
  for (int s = S; s > 0; --s)
    for (int i = 0; i < m.n; ++i)
      if (need[i] >= s)
        for (int j = 0; j < kNnb; ++j) {
          const int nb = m.nb[4 * (size_t)i + j];
          if (nb >= 0 && need[nb] < s - 1) need[nb] = s - 1;
        }
  for (int i = 0; i < m.n; ++i)
    if (need[i] >= 0) loc[i] = (int)ids.size(), ids.push_back(i);
  const size_t M = ids.size();
  std::vector<double> cur(5 * M), nxt(5 * M), old(5 * M), step(M);
  for (size_t k = 0; k < M; ++k)
    for (int v = 0; v < 5; ++v) cur[5 * k + v] = m.u0[5 * (size_t)ids[k] + v];
  double ff[5];
  farFieldState(ff);
  const Prim<double> qff = primitives(ff);
  for (int it = 0; it < iters; ++it) {
    for (size_t k = 0; k < M; ++k) {
      if (need[ids[k]] <= kRk * it) continue;
      const Prim<double> q = primitives(&cur[5 * k]);
      for (int v = 0; v < 5; ++v) old[5 * k + v] = cur[5 * k + v];
      step[k] = kCfl / (double(m.area[ids[k]]) * (q.speed + q.c));
    }
    for (int j = 0; j < kRk; ++j) {
      const int g = kRk * it + j;
      for (size_t k = 0; k < M; ++k) {
        const int i = ids[k];
        if (need[i] <= g) continue;
        const double* ui = &cur[5 * k];
        const Prim<double> qi = primitives(ui);
        double f[5] = {0, 0, 0, 0, 0};
        for (int s = 0; s < kNnb; ++s) {
          const int nb = m.nb[4 * (size_t)i + s];
          const float* n = &m.nrm[12 * (size_t)i + 3 * s];
          if (nb >= 0) interiorFace<double>(ui, qi, &cur[5 * (size_t)loc[nb]], n[0], n[1], n[2], f);
          else if (nb == kWall) wallFace<double>(qi, n[0], n[1], n[2], f);
          else farFieldFace<double>(ui, qi, ff, qff, n[0], n[1], n[2], f);
        }
        for (int v = 0; v < 5; ++v) nxt[5 * k + v] = old[5 * k + v] + step[k] / double(kRk - j) * f[v];
      }
      for (size_t k = 0; k < M; ++k)
        if (need[ids[k]] > g)
          for (int v = 0; v < 5; ++v) cur[5 * k + v] = nxt[5 * k + v];
    }
  }
  std::vector<double> out(5 * samples.size());
  for (size_t s = 0; s < samples.size(); ++s)
    for (int v = 0; v < 5; ++v) out[5 * s + v] = cur[5 * (size_t)loc[samples[s]] + v];
  return out;
}

// ---- Options, check and result line (the same in every variant) --------------------------------
static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--cubes C] [--iters K]\n"
               "  mesh of C^3 cubes, 6 tetrahedra each (C in 2..160; tiny 8, small 24, medium 64,\n"
               "  large 96 = default); K iterations of 3 Runge-Kutta stages timed (1..100000)\n",
               prog);
  std::exit(2);
}

static bool parseInt(const char* s, long lo, long hi, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static void parseOptions(int argc, char** argv, int* cubes, int* iters) {
  *cubes = 96, *iters = 60;
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (!std::strcmp(arg, "--tiny")) *cubes = 8, *iters = 4;
    else if (!std::strcmp(arg, "--size") && a + 1 < argc) {
      const char* s = argv[++a];
      if (!std::strcmp(s, "tiny")) *cubes = 8, *iters = 4;
      else if (!std::strcmp(s, "small")) *cubes = 24, *iters = 20;
      else if (!std::strcmp(s, "medium")) *cubes = 64, *iters = 60;
      else if (!std::strcmp(s, "large")) *cubes = 96, *iters = 60;
      else usage(argv[0]);
    } else if (!std::strcmp(arg, "--cubes") && a + 1 < argc) {
      if (!parseInt(argv[++a], 2, 160, cubes)) usage(argv[0]);
    } else if (!std::strcmp(arg, "--iters") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 100000, iters)) usage(argv[0]);
    } else usage(argv[0]);
  }
}

static void farFieldToDevice(float ff[5], Prim<float>* q) {
  double ffd[5];
  farFieldState(ffd);
  const Prim<double> qd = primitives(ffd);
  for (int v = 0; v < 5; ++v) ff[v] = float(ffd[v]);
  *q = {float(qd.vx), float(qd.vy), float(qd.vz), float(qd.p), float(qd.speed), float(qd.c)};
}

// `timed`: state after all timed iterations; `checked`: state after `checkIters` iterations from
// the start (5 floats per element). Prints the check and the result line, returns the exit code.
static int checkAndReport(const char* variant, const HostMesh& m, int iters, double ms, const std::vector<float>& timed,
                          const std::vector<float>& checked, int checkIters) {
  bool physical = true;
  for (int i = 0; i < m.n; ++i) {
    const float* u = &timed[5 * (size_t)i];
    physical = physical && u[0] > 0 && u[4] > 0 && std::isfinite(u[1] + u[2] + u[3]);
  }
  std::vector<int> samples;  // a deterministic subset (every element at the tiny size)
  for (int i = 0; i < m.n; i += std::max(1, m.n / 4096)) samples.push_back(i);
  const std::vector<double> ref = reference(m, samples, checkIters);
  // Errors relative to the largest reference magnitude of density, momentum and energy. Float
  // rounding (FMA contraction, summation order) over 6 stages stays near 1e-7 (measured with a
  // float CPU run); a swapped or misplaced field changes values by 1e-2 or more.
  double scale[3] = {0, 0, 0}, err[3] = {0, 0, 0};
  const int group[5] = {0, 1, 1, 1, 2};
  for (size_t s = 0; s < samples.size(); ++s)
    for (int v = 0; v < 5; ++v) {
      const double want = ref[5 * s + v], got = checked[5 * (size_t)samples[s] + v];
      scale[group[v]] = std::max(scale[group[v]], std::fabs(want));
      err[group[v]] = std::max(err[group[v]], std::isfinite(got) ? std::fabs(got - want) : 1e30);
    }
  double maxErr = 0;
  for (int g = 0; g < 3; ++g) maxErr = std::max(maxErr, err[g] / scale[g]);
  const double tol = 1e-5;
  const bool pass = physical && maxErr <= tol;
  std::printf("check: %d samples after %d iterations vs double reference; state after timing %s\n", (int)samples.size(),
              checkIters, physical ? "physical" : "NOT physical (NaN or negative density/energy)");
  std::printf("check: %s (max rel err %.3g, tol %.1g)\n", pass ? "PASS" : "FAIL", maxErr, tol);
  // Bytes: the fewest each iteration must move (every array once per kernel, each neighbour's
  // state read once). Flops: per element and per face kind, counted from the code above.
  const double bytes = double(iters) * m.n * (48.0 + kRk * (104.0 + 64.0));
  const double flops =
      double(iters) * (m.n * (20.0 + kRk * (17.0 + 11.0)) + kRk * (97.0 * m.interior + 6.0 * m.wall + 54.0 * m.far));
  bench::printResult("cfd", variant, ms, bytes, flops, bench::copyBandwidthGBs(), pass);
  return pass ? 0 : 1;
}

// ---- Kernels: the layout-only variant ---------------------------------------------------------------
__constant__ float c_ff[5];          // far-field conserved state
__constant__ Prim<float> c_ff_prim;  // and its primitives

// Saves the state the Runge-Kutta stages restart from, and the local time step.
__global__ void compute_step_factor(const State* __restrict__ s, const float* __restrict__ area, Conserved4 old,
                                    float* __restrict__ step_factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 dm = __ldg(&s[i].dm);
  const float energy = __ldg(&s[i].e.x);
  old.dm[i] = dm;
  old.e[i] = energy;
  const float u[5] = {dm.x, dm.y, dm.z, dm.w, energy};
  const Prim<float> q = primitives(u);
  step_factor[i] = float(kCfl) / (__ldg(&area[i]) * (q.speed + q.c));
}

__global__ void compute_flux(const State* __restrict__ s, Geometry g, Conserved4 flux, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 dm = __ldg(&s[i].dm);
  const float ui[5] = {dm.x, dm.y, dm.z, dm.w, __ldg(&s[i].e.x)};
  const Prim<float> qi = primitives(ui);
  const int4 nb4 = __ldg(&g.neighbor[i]);
  const float4 n0 = __ldg(&g.normal[i]), n1 = __ldg(&g.normal[n + i]), n2 = __ldg(&g.normal[2 * n + i]);
  const int nbs[kNnb] = {nb4.x, nb4.y, nb4.z, nb4.w};
  const float nrm[3 * kNnb] = {n0.x, n0.y, n0.z, n0.w, n1.x, n1.y, n1.z, n1.w, n2.x, n2.y, n2.z, n2.w};
  float f[5] = {0, 0, 0, 0, 0};
#pragma unroll
  for (int j = 0; j < kNnb; ++j) {
    const int nb = nbs[j];
    const float nx = nrm[3 * j], ny = nrm[3 * j + 1], nz = nrm[3 * j + 2];
    if (nb >= 0) {
      const float4 a = __ldg(&s[nb].dm);  // both loads hit the same 32-byte sector
      const float un[5] = {a.x, a.y, a.z, a.w, __ldg(&s[nb].e.x)};
      interiorFace(ui, qi, un, nx, ny, nz, f);
    } else if (nb == kWall) {
      wallFace(qi, nx, ny, nz, f);
    } else {
      farFieldFace(ui, qi, c_ff, c_ff_prim, nx, ny, nz, f);
    }
  }
  flux.dm[i] = make_float4(f[0], f[1], f[2], f[3]);
  flux.e[i] = f[4];
}

__global__ void time_step(int j, State* __restrict__ s, Conserved4 old, Conserved4 flux,
                          const float* __restrict__ step_factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float factor = __ldg(&step_factor[i]) / float(kRk - j);
  const float4 o = __ldg(&old.dm[i]), fl = __ldg(&flux.dm[i]);
  State r;  // written whole: full-sector stores
  r.dm = make_float4(o.x + factor * fl.x, o.y + factor * fl.y, o.z + factor * fl.z, o.w + factor * fl.w);
  r.e = make_float4(__ldg(&old.e[i]) + factor * __ldg(&flux.e[i]), 0.f, 0.f, 0.f);
  s[i] = r;
}

template <typename T>
static T* deviceArray(size_t count) {
  T* p;
  CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}

static void upload(State* d_s, int n, const std::vector<float>& u) {
  std::vector<State> h(n);
  for (int i = 0; i < n; ++i) {
    const float* v = &u[5 * (size_t)i];
    h[i].dm = make_float4(v[0], v[1], v[2], v[3]);
    h[i].e = make_float4(v[4], 0.f, 0.f, 0.f);
  }
  CUDA_CHECK(cudaMemcpy(d_s, h.data(), n * sizeof(State), cudaMemcpyHostToDevice));
}

static void download(const State* d_s, int n, std::vector<float>& u) {
  std::vector<State> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), d_s, n * sizeof(State), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const float v[5] = {h[i].dm.x, h[i].dm.y, h[i].dm.z, h[i].dm.w, h[i].e.x};
    std::copy(v, v + 5, &u[5 * (size_t)i]);
  }
}

int main(int argc, char** argv) {
  int cubes, iters;
  parseOptions(argc, argv, &cubes, &iters);
  const HostMesh m = buildMesh(cubes);
  const int n = m.n;
  std::printf("cfd %s: %d^3 cubes, %d tetrahedra, %d iterations; faces: %lld interior, %lld wall, %lld far field\n",
              kVariant, cubes, n, iters, m.interior, m.wall, m.far);
  std::vector<float4> nrm(3 * (size_t)n);  // element i's 12 components, as 3 variable-major float4
  for (int i = 0; i < n; ++i)
    for (int q = 0; q < 3; ++q) {
      const float* c = &m.nrm[12 * (size_t)i + 4 * q];
      nrm[(size_t)q * n + i] = make_float4(c[0], c[1], c[2], c[3]);
    }
  float ff[5];
  Prim<float> qff;
  farFieldToDevice(ff, &qff);
  CUDA_CHECK(cudaMemcpyToSymbol(c_ff, ff, sizeof(ff)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_ff_prim, &qff, sizeof(qff)));

  State* d_s = deviceArray<State>(n);
  const Geometry g = {deviceArray<int4>(n), deviceArray<float4>(3 * (size_t)n), deviceArray<float>(n)};
  const Conserved4 old = {deviceArray<float4>(n), deviceArray<float>(n)};
  const Conserved4 flux = {deviceArray<float4>(n), deviceArray<float>(n)};
  float* d_step = deviceArray<float>(n);
  upload(d_s, n, m.u0);
  static_assert(sizeof(int4) == 4 * sizeof(int), "neighbour rows are 4 ints");
  CUDA_CHECK(cudaMemcpy(g.neighbor, m.nb.data(), n * sizeof(int4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(g.normal, nrm.data(), nrm.size() * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(g.area, m.area.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block, fblock = 128, fgrid = (n + fblock - 1) / fblock;
  auto run = [&](int count) {
    for (int it = 0; it < count; ++it) {
      compute_step_factor<<<grid, block>>>(d_s, g.area, old, d_step, n);
      for (int j = 0; j < kRk; ++j) {
        compute_flux<<<fgrid, fblock>>>(d_s, g, flux, n);
        time_step<<<grid, block>>>(j, d_s, old, flux, d_step, n);
      }
    }
  };
  // Every repetition advances the flow by `iters` more iterations: the same work each time.
  const double ms = bench::medianMs([&] { run(iters); }, 5);
  std::vector<float> timed(5 * (size_t)n), checked(5 * (size_t)n);
  download(d_s, n, timed);
  const int checkIters = std::min(iters, 2);  // a short run from the start, for the reference
  upload(d_s, n, m.u0);
  run(checkIters);
  CUDA_CHECK(cudaGetLastError());
  download(d_s, n, checked);
  const int rc = checkAndReport(kVariant, m, iters, ms, timed, checked, checkIters);
  for (void* p : {(void*)d_s, (void*)g.neighbor, (void*)g.normal, (void*)g.area, (void*)old.dm, (void*)old.e,
                  (void*)flux.dm, (void*)flux.e, (void*)d_step})
    CUDA_CHECK(cudaFree(p));
  return rc;
}
