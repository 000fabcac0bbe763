// cfd: cell-centred finite-volume solver for the 3-D compressible Euler equations on an
// unstructured tetrahedral mesh, after the method of Rodinia's cfd (euler3d): per element a
// central flux over its 4 faces with scalar artificial dissipation, wall and far-field boundary
// faces, local time stepping and 3 Runge-Kutta stages per iteration.
// Array-of-structs original: one Element record per cell, neighbours reached through an index.
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

struct Element {
  float density;
  float momentum_x, momentum_y, momentum_z;
  float energy;
  float area;             // surface area (sum of the face areas): sets the local time step
  int neighbor[kNnb];     // element across each face, or kWall / kFarField
  float normal[kNnb][3];  // outward face normal scaled by the face area
};

struct Conserved {
  float density, momentum_x, momentum_y, momentum_z, energy;
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
  std::vector<float> u0;   // initial conserved state, 5 per element
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
  std::printf("check: %d samples after %d iterations vs double reference; state after timing %s\n",
              (int)samples.size(), checkIters, physical ? "physical" : "NOT physical (NaN or negative density/energy)");
  std::printf("check: %s (max rel err %.3g, tol %.1g)\n", pass ? "PASS" : "FAIL", maxErr, tol);
  // Bytes: the fewest each iteration must move (every array once per kernel, each neighbour's
  // state read once). Flops: per element and per face kind, counted from the code above.
  const double bytes = double(iters) * m.n * (48.0 + kRk * (104.0 + 64.0));
  const double flops = double(iters) * (m.n * (20.0 + kRk * (17.0 + 11.0)) +
                                        kRk * (97.0 * m.interior + 6.0 * m.wall + 54.0 * m.far));
  bench::printResult("cfd", variant, ms, bytes, flops, bench::copyBandwidthGBs(), pass);
  return pass ? 0 : 1;
}

// ---- Kernels: the array-of-structs original ------------------------------------------------------
__constant__ float c_ff[5];         // far-field conserved state
__constant__ Prim<float> c_ff_prim;  // and its primitives

// Saves the state the Runge-Kutta stages restart from, and the local time step.
__global__ void compute_step_factor(const Element* e, Conserved* old, float* step_factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float u[5] = {e[i].density, e[i].momentum_x, e[i].momentum_y, e[i].momentum_z, e[i].energy};
  old[i].density = u[0], old[i].momentum_x = u[1], old[i].momentum_y = u[2];
  old[i].momentum_z = u[3], old[i].energy = u[4];
  const Prim<float> q = primitives(u);
  step_factor[i] = float(kCfl) / (e[i].area * (q.speed + q.c));
}

__global__ void compute_flux(const Element* e, Conserved* flux, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float ui[5] = {e[i].density, e[i].momentum_x, e[i].momentum_y, e[i].momentum_z, e[i].energy};
  const Prim<float> qi = primitives(ui);
  float f[5] = {0, 0, 0, 0, 0};
#pragma unroll
  for (int j = 0; j < kNnb; ++j) {
    const int nb = e[i].neighbor[j];
    const float nx = e[i].normal[j][0], ny = e[i].normal[j][1], nz = e[i].normal[j][2];
    if (nb >= 0) {
      const float un[5] = {e[nb].density, e[nb].momentum_x, e[nb].momentum_y, e[nb].momentum_z, e[nb].energy};
      interiorFace(ui, qi, un, nx, ny, nz, f);
    } else if (nb == kWall) {
      wallFace(qi, nx, ny, nz, f);
    } else {
      farFieldFace(ui, qi, c_ff, c_ff_prim, nx, ny, nz, f);
    }
  }
  flux[i].density = f[0], flux[i].momentum_x = f[1], flux[i].momentum_y = f[2];
  flux[i].momentum_z = f[3], flux[i].energy = f[4];
}

__global__ void time_step(int j, Element* e, const Conserved* old, const Conserved* flux, const float* step_factor,
                          int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float factor = step_factor[i] / float(kRk - j);
  e[i].density = old[i].density + factor * flux[i].density;
  e[i].momentum_x = old[i].momentum_x + factor * flux[i].momentum_x;
  e[i].momentum_y = old[i].momentum_y + factor * flux[i].momentum_y;
  e[i].momentum_z = old[i].momentum_z + factor * flux[i].momentum_z;
  e[i].energy = old[i].energy + factor * flux[i].energy;
}

static void download(const Element* d_e, int n, std::vector<float>& u) {
  std::vector<Element> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), d_e, n * sizeof(Element), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const float v[5] = {h[i].density, h[i].momentum_x, h[i].momentum_y, h[i].momentum_z, h[i].energy};
    std::copy(v, v + 5, &u[5 * (size_t)i]);
  }
}

int main(int argc, char** argv) {
  int cubes, iters;
  parseOptions(argc, argv, &cubes, &iters);
  const HostMesh m = buildMesh(cubes);
  const int n = m.n;
  std::printf("cfd aos: %d^3 cubes, %d tetrahedra, %d iterations; faces: %lld interior, %lld wall, %lld far field\n",
              cubes, n, iters, m.interior, m.wall, m.far);
  std::vector<Element> h(n);
  for (int i = 0; i < n; ++i) {
    Element& e = h[i];
    const float* u = &m.u0[5 * (size_t)i];
    e.density = u[0], e.momentum_x = u[1], e.momentum_y = u[2], e.momentum_z = u[3], e.energy = u[4];
    e.area = m.area[i];
    for (int j = 0; j < kNnb; ++j) {
      e.neighbor[j] = m.nb[4 * (size_t)i + j];
      for (int r = 0; r < 3; ++r) e.normal[j][r] = m.nrm[12 * (size_t)i + 3 * j + r];
    }
  }
  float ff[5];
  Prim<float> qff;
  farFieldToDevice(ff, &qff);
  CUDA_CHECK(cudaMemcpyToSymbol(c_ff, ff, sizeof(ff)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_ff_prim, &qff, sizeof(qff)));

  Element* d_e;
  Conserved *d_old, *d_flux;
  float* d_step;
  CUDA_CHECK(cudaMalloc(&d_e, n * sizeof(Element)));
  CUDA_CHECK(cudaMalloc(&d_old, n * sizeof(Conserved)));
  CUDA_CHECK(cudaMalloc(&d_flux, n * sizeof(Conserved)));
  CUDA_CHECK(cudaMalloc(&d_step, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_e, h.data(), n * sizeof(Element), cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block, fblock = 128, fgrid = (n + fblock - 1) / fblock;
  auto run = [&](int count) {
    for (int it = 0; it < count; ++it) {
      compute_step_factor<<<grid, block>>>(d_e, d_old, d_step, n);
      for (int j = 0; j < kRk; ++j) {
        compute_flux<<<fgrid, fblock>>>(d_e, d_flux, n);
        time_step<<<grid, block>>>(j, d_e, d_old, d_flux, d_step, n);
      }
    }
  };
  // Every repetition advances the flow by `iters` more iterations: the same work each time.
  const double ms = bench::medianMs([&] { run(iters); }, 5);
  std::vector<float> timed(5 * (size_t)n), checked(5 * (size_t)n);
  download(d_e, n, timed);
  const int checkIters = std::min(iters, 2);  // a short run from the start, for the reference
  CUDA_CHECK(cudaMemcpy(d_e, h.data(), n * sizeof(Element), cudaMemcpyHostToDevice));
  run(checkIters);
  CUDA_CHECK(cudaGetLastError());
  download(d_e, n, checked);
  const int rc = checkAndReport("aos", m, iters, ms, timed, checked, checkIters);
  CUDA_CHECK(cudaFree(d_e));
  CUDA_CHECK(cudaFree(d_old));
  CUDA_CHECK(cudaFree(d_flux));
  CUDA_CHECK(cudaFree(d_step));
  return rc;
}
