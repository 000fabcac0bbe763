// 25-point stencil of the kinetic-energy operator on complex wave functions, as in the ARTED /
// SALMON electron-dynamics code (seed 004, Hirokawa et al.): for every k-point and band, on a
// periodic real-space grid NX x NY x NZ (z contiguous),
//   hpsi = C0(k) psi + sum_{d=x,y,z} sum_{n=1..4} [ lap_d(n) (psi(+n) + psi(-n))
//                                                   - i nab_d(k,n) (psi(+n) - psi(-n)) ]
// which is -1/2 (nabla + i k)^2 psi with 8th-order central differences.
// Layout-only variant of stencil25.cu: the same kernel, launch shape (one thread per grid point,
// 128 threads per block, one band per blockIdx.y), index tables modx/mody/modz, term order and
// checks; only the complex record changes. stencil25.cu's {re, im} struct is 8-byte aligned, so
// each of the 25 values a thread reads costs two 8-byte loads (.re and .im separately, each warp
// load spanning 512 bytes of which it uses half). Here the record is __align__(16): every value is
// read whole, as one 16-byte load (ld.global.nc.v2.f64, 512 contiguous bytes per warp, all of them
// used), and hpsi is written with one 16-byte store: half the load instructions and L1 wavefronts
// of the AoS original, and one load where SoA needs two (re and im from separate arrays).
#include "../common/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char* kVariant = "layout";

struct __align__(16) Complex {  // 16-byte aligned: loaded and stored as one 128-bit access
  double re, im;
};

constexpr int MAXNK = 256;    // k-points held in constant memory
constexpr int THREADS = 128;  // as in the seed paper

__constant__ double c_lap[3][4];         // lap_d(n) = -1/2 * c2_n / h_d^2
__constant__ double c_nab[MAXNK][3][4];  // nab_d(k,n) = k_d * c1_n / h_d
__constant__ double c_C0[MAXNK];         // centre: -1/2 c2_0 sum_d 1/h_d^2 + |k|^2 / 2

// modx[ix + 4 + n] = (ix + n) mod NX for n = -4..4, likewise y and z.
__global__ void __launch_bounds__(THREADS)
    hpsiStencil(const Complex* __restrict__ psi, Complex* __restrict__ hpsi, const int* __restrict__ modx,
                const int* __restrict__ mody, const int* __restrict__ modz, int nx, int ny, int nz, int nb) {
  const int nl = nx * ny * nz;
  const int g = blockIdx.x * THREADS + threadIdx.x;  // grid point of this band
  if (g >= nl) return;
  const int band = blockIdx.y, ik = band / nb;
  const int iz = g % nz, iy = (g / nz) % ny, ix = g / (ny * nz);
  const Complex* t = psi + (size_t)band * nl;

  double vre = 0, vim = 0;  // sum of lap * (psi(+n) + psi(-n))
  double wre = 0, wim = 0;  // sum of nab * (psi(+n) - psi(-n))
#pragma unroll
  for (int n = 1; n <= 4; ++n) {
    const int xp = (modx[ix + 4 + n] * ny + iy) * nz + iz, xm = (modx[ix + 4 - n] * ny + iy) * nz + iz;
    const int yp = (ix * ny + mody[iy + 4 + n]) * nz + iz, ym = (ix * ny + mody[iy + 4 - n]) * nz + iz;
    const int zp = (ix * ny + iy) * nz + modz[iz + 4 + n], zm = (ix * ny + iy) * nz + modz[iz + 4 - n];
    // The six neighbours, each read whole (one 16-byte load); the sums are those of stencil25.cu.
    const Complex pxp = t[xp], pxm = t[xm], pyp = t[yp], pym = t[ym], pzp = t[zp], pzm = t[zm];
    vre +=
        c_lap[0][n - 1] * (pxp.re + pxm.re) + c_lap[1][n - 1] * (pyp.re + pym.re) + c_lap[2][n - 1] * (pzp.re + pzm.re);
    vim +=
        c_lap[0][n - 1] * (pxp.im + pxm.im) + c_lap[1][n - 1] * (pyp.im + pym.im) + c_lap[2][n - 1] * (pzp.im + pzm.im);
    wre += c_nab[ik][0][n - 1] * (pxp.re - pxm.re) + c_nab[ik][1][n - 1] * (pyp.re - pym.re) +
           c_nab[ik][2][n - 1] * (pzp.re - pzm.re);
    wim += c_nab[ik][0][n - 1] * (pxp.im - pxm.im) + c_nab[ik][1][n - 1] * (pyp.im - pym.im) +
           c_nab[ik][2][n - 1] * (pzp.im - pzm.im);
  }
  // hpsi = C0 psi + v - i w, written as one 16-byte record
  const Complex c = t[g];
  Complex out;
  out.re = c_C0[ik] * c.re + vre + wim;
  out.im = c_C0[ik] * c.im + vim - wre;
  hpsi[(size_t)band * nl + g] = out;
}

// ---------------------------------------------------------------- host side

struct Options {
  int nx = 20, ny = 36, nz = 52, nk = 32, nb = 64;  // medium
  int steps = -1;                                   // -1: the size's default
  const char* name = "medium";
};

static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--grid NXxNYxNZ] [--nk N] [--nb N] [--steps N]\n"
               "  --size   tiny 16^3 x 2 k x 4 bands (= --tiny); small 16^3 x 16 x 64;\n"
               "           medium 20x36x52 x 32 x 64 (default); large 16^3 x 128 x 256 (4 GiB in all, as in seed 004)\n"
               "  --grid   real-space grid per band, each extent 4..512\n"
               "  --nk     k-points (1..%d), --nb bands per k-point (1..65535 total bands)\n"
               "  --steps  applications of H timed per repetition (default: about 50 ms of work)\n",
               prog, MAXNK);
  std::exit(2);
}

static bool parseInt(const char* s, long lo, long hi, int& out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return false;
  out = (int)v;
  return true;
}

static void setSize(Options& o, const char* s, const char* prog) {
  if (!std::strcmp(s, "tiny")) o.nx = o.ny = o.nz = 16, o.nk = 2, o.nb = 4;
  else if (!std::strcmp(s, "small")) o.nx = o.ny = o.nz = 16, o.nk = 16, o.nb = 64;
  else if (!std::strcmp(s, "medium")) o.nx = 20, o.ny = 36, o.nz = 52, o.nk = 32, o.nb = 64;
  else if (!std::strcmp(s, "large")) o.nx = o.ny = o.nz = 16, o.nk = 128, o.nb = 256;
  else usage(prog);
  o.name = s;
}

static Options parseOptions(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    if (!std::strcmp(arg, "--tiny")) {
      setSize(o, "tiny", argv[0]);
    } else if (!std::strcmp(arg, "--size") && a + 1 < argc) {
      setSize(o, argv[++a], argv[0]);
    } else if (!std::strcmp(arg, "--grid") && a + 1 < argc) {
      char tail;
      if (std::sscanf(argv[++a], "%dx%dx%d%c", &o.nx, &o.ny, &o.nz, &tail) != 3) usage(argv[0]);
      if (std::min({o.nx, o.ny, o.nz}) < 4 || std::max({o.nx, o.ny, o.nz}) > 512) usage(argv[0]);
      o.name = "custom";
    } else if (!std::strcmp(arg, "--nk") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, MAXNK, o.nk)) usage(argv[0]);
    } else if (!std::strcmp(arg, "--nb") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 65535, o.nb)) usage(argv[0]);
    } else if (!std::strcmp(arg, "--steps") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 1000000, o.steps)) usage(argv[0]);
    } else {
      usage(argv[0]);
    }
  }
  const double points = (double)o.nx * o.ny * o.nz * o.nk * o.nb;
  if (o.nk * o.nb > 65535 || points * 2 * sizeof(Complex) > 24e9) usage(argv[0]);  // grid.y; 24 GB on the GPU
  if (o.steps < 0)  // tiny is the quick test; otherwise >= 50 ms of kernels even at 5 TB/s, at most
    // 10000 launches (small custom problems are launch-bound)
    o.steps = !std::strcmp(o.name, "tiny")
                  ? 10
                  : (int)std::min(1e4, std::max(5.0, std::ceil(50e-3 * 5e12 / (32.0 * points))));
  return o;
}

// Deterministic LCG in [-1, 1).
static double uniform(unsigned& s) {
  s = s * 1664525u + 1013904223u;
  return (s >> 8) * (2.0 / 16777216.0) - 1.0;
}

struct Coefficients {  // host copies of the constant-memory tables
  double lap[3][4], nab[MAXNK][3][4], C0[MAXNK];
};

// 8th-order central differences on spacings h = (0.50, 0.45, 0.40) bohr; k-points spread over the
// Brillouin zone, each with its own nab and C0 (as ARTED folds k + A(t) into them).
static Coefficients makeCoefficients(int nk) {
  const double c2[5] = {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560};
  const double c1[4] = {4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280};
  const double h[3] = {0.50, 0.45, 0.40};
  Coefficients c{};
  for (int d = 0; d < 3; ++d)
    for (int n = 0; n < 4; ++n) c.lap[d][n] = -0.5 * c2[n + 1] / (h[d] * h[d]);
  unsigned s = 777u;
  for (int ik = 0; ik < nk; ++ik) {
    double kv[3], k2 = 0;
    for (int d = 0; d < 3; ++d) kv[d] = 0.5 * uniform(s) * M_PI / h[d] / 8, k2 += kv[d] * kv[d];
    for (int d = 0; d < 3; ++d)
      for (int n = 0; n < 4; ++n) c.nab[ik][d][n] = kv[d] * c1[n] / h[d];
    c.C0[ik] = -0.5 * c2[0] * (1 / (h[0] * h[0]) + 1 / (h[1] * h[1]) + 1 / (h[2] * h[2])) + 0.5 * k2;
  }
  return c;
}

// The stencil for one band in double precision, in the same term order as the kernel.
static void referenceBand(const Complex* t, Complex* h, const Coefficients& c, int ik, int nx, int ny, int nz) {
  auto at = [&](int x, int y, int z) { return t[(((x + nx) % nx) * ny + (y + ny) % ny) * nz + (z + nz) % nz]; };
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y)
      for (int z = 0; z < nz; ++z) {
        double vre = 0, vim = 0, wre = 0, wim = 0;
        for (int n = 1; n <= 4; ++n) {
          const Complex xp = at(x + n, y, z), xm = at(x - n, y, z), yp = at(x, y + n, z), ym = at(x, y - n, z);
          const Complex zp = at(x, y, z + n), zm = at(x, y, z - n);
          vre +=
              c.lap[0][n - 1] * (xp.re + xm.re) + c.lap[1][n - 1] * (yp.re + ym.re) + c.lap[2][n - 1] * (zp.re + zm.re);
          vim +=
              c.lap[0][n - 1] * (xp.im + xm.im) + c.lap[1][n - 1] * (yp.im + ym.im) + c.lap[2][n - 1] * (zp.im + zm.im);
          wre += c.nab[ik][0][n - 1] * (xp.re - xm.re) + c.nab[ik][1][n - 1] * (yp.re - ym.re) +
                 c.nab[ik][2][n - 1] * (zp.re - zm.re);
          wim += c.nab[ik][0][n - 1] * (xp.im - xm.im) + c.nab[ik][1][n - 1] * (yp.im - ym.im) +
                 c.nab[ik][2][n - 1] * (zp.im - zm.im);
        }
        const Complex& p = t[(x * ny + y) * nz + z];
        Complex& out = h[(x * ny + y) * nz + z];
        out.re = c.C0[ik] * p.re + vre + wim;
        out.im = c.C0[ik] * p.im + vim - wre;
      }
}

int main(int argc, char** argv) {
  const Options o = parseOptions(argc, argv);
  const int nx = o.nx, ny = o.ny, nz = o.nz, nbands = o.nk * o.nb;
  const int nl = nx * ny * nz;
  const size_t total = (size_t)nl * nbands;
  std::printf("stencil25 %s: grid %dx%dx%d, %d k-points x %d bands (%s), %d applications timed\n", kVariant, nx, ny, nz,
              o.nk, o.nb, o.name, o.steps);

  std::vector<Complex> hPsi(total);
  unsigned s = 2018u;
  for (Complex& v : hPsi) v.re = uniform(s), v.im = uniform(s);
  const Coefficients coef = makeCoefficients(o.nk);
  std::vector<int> modx(nx + 8), mody(ny + 8), modz(nz + 8);
  for (int i = -4; i < nx + 4; ++i) modx[i + 4] = (i + nx) % nx;
  for (int i = -4; i < ny + 4; ++i) mody[i + 4] = (i + ny) % ny;
  for (int i = -4; i < nz + 4; ++i) modz[i + 4] = (i + nz) % nz;

  Complex *dPsi, *dHpsi;
  int *dModx, *dMody, *dModz;
  CUDA_CHECK(cudaMalloc(&dPsi, total * sizeof(Complex)));
  CUDA_CHECK(cudaMalloc(&dHpsi, total * sizeof(Complex)));
  CUDA_CHECK(cudaMalloc(&dModx, modx.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dMody, mody.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dModz, modz.size() * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dPsi, hPsi.data(), total * sizeof(Complex), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dModx, modx.data(), modx.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dMody, mody.data(), mody.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dModz, modz.data(), modz.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_lap, coef.lap, sizeof(coef.lap)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_nab, coef.nab, sizeof(coef.nab)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_C0, coef.C0, sizeof(coef.C0)));
  CUDA_CHECK(cudaMemset(dHpsi, 0xff, total * sizeof(Complex)));  // NaN: an unwritten point fails the check

  const dim3 grid((nl + THREADS - 1) / THREADS, nbands);
  auto apply = [&](int steps) {
    for (int st = 0; st < steps; ++st)
      hpsiStencil<<<grid, THREADS>>>(dPsi, dHpsi, dModx, dMody, dModz, nx, ny, nz, o.nb);
  };
  apply(1);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Complex> got(total);
  CUDA_CHECK(cudaMemcpy(got.data(), dHpsi, total * sizeof(Complex), cudaMemcpyDeviceToHost));

  // Check up to 64 bands spread over all k-points (every band when there are fewer).
  const int stride = std::max(1, nbands / 64);
  std::vector<Complex> ref(nl);
  double maxErr = 0, maxRef = 0;
  for (int band = 0; band < nbands; band += stride) {
    referenceBand(hPsi.data() + (size_t)band * nl, ref.data(), coef, band / o.nb, nx, ny, nz);
    const Complex* g = got.data() + (size_t)band * nl;
    for (int i = 0; i < nl; ++i) {
      const double e = std::max(std::fabs(g[i].re - ref[i].re), std::fabs(g[i].im - ref[i].im));
      maxErr = std::isnan(e) ? INFINITY : std::max(maxErr, e);
      maxRef = std::max({maxRef, std::fabs(ref[i].re), std::fabs(ref[i].im)});
    }
  }
  const double err = maxErr / maxRef;
  // Same double arithmetic up to FMA contraction and summation order: 25 terms of size <= ~4*max|psi|
  // against max|hpsi| ~ 20*max|psi| leave errors near 1e-16; 1e-12 allows for that, while a swapped
  // re/im or a wrong neighbour is an O(1) error.
  const double tol = 1e-12;
  const bool pass = err <= tol;
  std::printf("check: %s (max rel err %.3g, tol %.3g; %d of %d bands)\n", pass ? "PASS" : "FAIL", err, tol,
              (nbands + stride - 1) / stride, nbands);

  const double ms = bench::medianMs([&] { apply(o.steps); });
  const double copyGBs = bench::copyBandwidthGBs();
  bench::printResult("stencil25", kVariant, ms, 32.0 * total * o.steps, 146.0 * total * o.steps, copyGBs, pass);

  CUDA_CHECK(cudaFree(dPsi));
  CUDA_CHECK(cudaFree(dHpsi));
  CUDA_CHECK(cudaFree(dModx));
  CUDA_CHECK(cudaFree(dMody));
  CUDA_CHECK(cudaFree(dModz));
  return pass ? 0 : 1;
}
