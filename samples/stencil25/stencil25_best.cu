// 25-point stencil of the kinetic-energy operator on complex wave functions, as in the ARTED /
// SALMON electron-dynamics code (seed 004, Hirokawa et al.): for every k-point and band, on a
// periodic real-space grid NX x NY x NZ (z contiguous),
//   hpsi = C0(k) psi + sum_{d=x,y,z} sum_{n=1..4} [ lap_d(n) (psi(+n) + psi(-n))
//                                                   - i nab_d(k,n) (psi(+n) - psi(-n)) ]
// which is -1/2 (nabla + i k)^2 psi with 8th-order central differences.
// Best-known variant, tuned for Hopper:
//  * wave functions as double2 (16-byte aligned {re, im}: one 128-bit load or store per value);
//  * each block owns `yb` rows of the y-z plane of one band (one thread per point, z along the
//    lanes: coalesced) and marches along x, the slowest axis, keeping psi(x-4 .. x+4) of its point
//    in a register queue (seed 004's sequential axis with registers, here on the axis that is not
//    contiguous), with the next plane's value loaded one step ahead;
//  * the y and z neighbours come from a shared-memory copy of plane x with 4-wide periodic halos
//    in y and z, so every neighbour is at a fixed offset: the block's own rows (and their z wrap)
//    are written from the queue, the y halo rows arrive by cp.async one step ahead (or are copies
//    of own rows when the whole plane fits in one block); two buffers, one __syncthreads a step;
//  * FMA-friendly sums: 100 double operations per point; the x loop unrolled by the queue length.
#include <cuda_pipeline_primitives.h>

#include "../common/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Complex {  // host-side value type (same bytes as double2)
  double re, im;
};

constexpr int MAXNK = 256;  // k-points held in constant memory
constexpr int MAXT = 640;   // threads per block: a plane chunk of up to 640 points

__constant__ double c_lap[3][4];         // lap_d(n) = -1/2 * c2_n / h_d^2
__constant__ double c_nab[MAXNK][3][4];  // nab_d(k,n) = k_d * c1_n / h_d
__constant__ double c_C0[MAXNK];         // centre: -1/2 c2_0 sum_d 1/h_d^2 + |k|^2 / 2

// Shared memory of a block: two tile buffers of (yb+8) x (nz+8) double2, then the halo table.
__host__ __device__ inline size_t tileElems(int yb, int nz) { return (size_t)(yb + 8) * (nz + 8); }

// Block (blockIdx.x, band): rows y0 .. y0+yb-1 of every x plane. halo = 0 means yb == ny: the
// y wrap is then inside the block.
__global__ void __launch_bounds__(MAXT, 1) hpsiMarch(const double2* __restrict__ psi, double2* __restrict__ hpsi,
                                                     int nx, int ny, int nz, int nb, int yb, int halo) {
  extern __shared__ double2 smem[];
  const int W = nz + 8, tileSize = (yb + 8) * W, plane = ny * nz, nHalo = halo ? 8 * nz : 0;
  int2* haloTab = reinterpret_cast<int2*>(smem + 2 * tileSize);  // (offset in plane, offset in tile)
  const int band = blockIdx.y, ik = band / nb, y0 = blockIdx.x * yb;
  const double2* src = psi + (size_t)band * nx * plane;
  double2* dst = hpsi + (size_t)band * nx * plane;
  const int t = threadIdx.x, ly = t / nz, z = t - ly * nz;
  const bool active = ly < yb;
  const int off = (y0 + ly) * nz + z;  // this thread's point in a plane
  const int own = (ly + 4) * W + z + 4;  // and in a tile
  // Where else this point's value goes: z halo of its own row, y halo rows when they are ours.
  const int zCopy = z < 4 ? own + nz : z >= nz - 4 ? own - nz : -1;
  const int yCopy = halo ? -1 : ly < 4 ? own + ny * W : ly >= ny - 4 ? own - ny * W : -1;
  const int zCopy2 = nz < 8 && z < 4 && z >= nz - 4 ? own - nz : -1;  // tiny nz: both sides
  const int yCopy2 = !halo && ny < 8 && ly < 4 && ly >= ny - 4 ? own - ny * W : -1;
  for (int e = t; e < nHalo; e += blockDim.x) {  // y halo rows y0-4 .. y0-1, y0+yb .. y0+yb+3
    const int r = e / nz, hz = e - r * nz, tr = r < 4 ? r : yb + r;
    const int gy = ((y0 - 4 + tr) % ny + ny) % ny;
    haloTab[e] = make_int2(gy * nz + hz, tr * W + hz + 4);
  }
  __syncthreads();
  auto loadHalo = [&](int x, double2* buf) {
    for (int e = t; e < nHalo; e += blockDim.x) {
      const int2 o = haloTab[e];
      __pipeline_memcpy_async(buf + o.y, src + (size_t)x * plane + o.x, sizeof(double2));
    }
    __pipeline_commit();
  };
  auto wrapx = [nx](int x) { return (x % nx + nx) % nx; };

  double2 q[9], next = make_double2(0, 0);  // q[n] = psi(x - 4 + n) at this point
  if (active) {
#pragma unroll
    for (int n = 0; n < 8; ++n) q[n] = __ldg(src + (size_t)wrapx(n - 4) * plane + off);
    next = __ldg(src + (size_t)wrapx(4) * plane + off);
  }
  loadHalo(0, smem);
  const double C0 = c_C0[ik];
#pragma unroll 9  // the queue's period: unrolled, its shifts become register renaming
  for (int x = 0; x < nx; ++x) {
    double2* buf = smem + (x & 1) * tileSize;
    if (active) {
      q[8] = next;
      if (x + 1 < nx) next = __ldg(src + (size_t)(x + 5 < nx ? x + 5 : x + 5 - nx) * plane + off);
      const double2 c = q[4];
      buf[own] = c;
      if (zCopy >= 0) buf[zCopy] = c;
      if (zCopy2 >= 0) buf[zCopy2] = c;
      if (yCopy >= 0) buf[yCopy] = c;
      if (yCopy2 >= 0) buf[yCopy2] = c;
    }
    __pipeline_wait_prior(0);
    __syncthreads();  // plane x complete in buf; everyone is past step x-1, so the other buffer is free
    if (x + 1 < nx) loadHalo(x + 1, smem + ((x + 1) & 1) * tileSize);
    if (active) {
      const double2* b = buf + own;
      double vre = 0, vim = 0, wre = 0, wim = 0;  // sums of lap*(p+ + p-) and nab*(p+ - p-)
#pragma unroll
      for (int n = 1; n <= 4; ++n) {
        const double2 nb6[6] = {q[4 + n], q[4 - n], b[n * W], b[-n * W], b[n], b[-n]};  // x, y, z pairs
#pragma unroll
        for (int d = 0; d < 3; ++d) {
          const double2 p = nb6[2 * d], m = nb6[2 * d + 1];
          vre = fma(c_lap[d][n - 1], p.x + m.x, vre);
          vim = fma(c_lap[d][n - 1], p.y + m.y, vim);
          wre = fma(c_nab[ik][d][n - 1], p.x - m.x, wre);
          wim = fma(c_nab[ik][d][n - 1], p.y - m.y, wim);
        }
      }
      const double2 c = q[4];
      // hpsi = C0 psi + v - i w
      dst[(size_t)x * plane + off] = make_double2(fma(C0, c.x, vre) + wim, fma(C0, c.y, vim) - wre);
#pragma unroll
      for (int n = 0; n < 8; ++n) q[n] = q[n + 1];
    }
  }
}

// ---------------------------------------------------------------- host side

struct Options {
  int nx = 20, ny = 36, nz = 52, nk = 32, nb = 64;  // medium
  int steps = -1;                                  // -1: the size's default
  int blockRows = 0;                               // 0: chosen from the grid
  const char* name = "medium";
};

static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--grid NXxNYxNZ] [--nk N] [--nb N] [--steps N]"
               " [--block-rows N]\n"
               "  --size   tiny 16^3 x 2 k x 4 bands (= --tiny); small 16^3 x 16 x 64;\n"
               "           medium 20x36x52 x 32 x 64 (default); large 16^3 x 128 x 256 (4 GiB in all, as in seed 004)\n"
               "  --grid   real-space grid per band, each extent 4..512\n"
               "  --nk     k-points (1..%d), --nb bands per k-point (1..65535 total bands)\n"
               "  --steps  applications of H timed per repetition (default: about 50 ms of work)\n"
               "  --block-rows  y rows per block (must divide NY, rows x NZ <= %d; default: chosen)\n",
               prog, MAXNK, MAXT);
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
    } else if (!std::strcmp(arg, "--block-rows") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 512, o.blockRows)) usage(argv[0]);
    } else {
      usage(argv[0]);
    }
  }
  const double points = (double)o.nx * o.ny * o.nz * o.nk * o.nb;
  if (o.nk * o.nb > 65535 || points * 2 * sizeof(Complex) > 24e9) usage(argv[0]);  // grid.y; 24 GB on the GPU
  if (o.blockRows && (o.ny % o.blockRows || o.blockRows * o.nz > MAXT)) usage(argv[0]);
  if (o.steps < 0)  // tiny is the quick test; otherwise >= 50 ms of kernels even at 5 TB/s, at most
    // 10000 launches (small custom problems are launch-bound)
    o.steps = !std::strcmp(o.name, "tiny") ? 10
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
  auto at = [&](int x, int y, int z) {
    return t[(((x + nx) % nx) * ny + (y + ny) % ny) * nz + (z + nz) % nz];
  };
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y)
      for (int z = 0; z < nz; ++z) {
        double vre = 0, vim = 0, wre = 0, wim = 0;
        for (int n = 1; n <= 4; ++n) {
          const Complex xp = at(x + n, y, z), xm = at(x - n, y, z), yp = at(x, y + n, z), ym = at(x, y - n, z);
          const Complex zp = at(x, y, z + n), zm = at(x, y, z - n);
          vre += c.lap[0][n - 1] * (xp.re + xm.re) + c.lap[1][n - 1] * (yp.re + ym.re) +
                 c.lap[2][n - 1] * (zp.re + zm.re);
          vim += c.lap[0][n - 1] * (xp.im + xm.im) + c.lap[1][n - 1] * (yp.im + ym.im) +
                 c.lap[2][n - 1] * (zp.im + zm.im);
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
  // Rows per block: the largest divisor of NY with at most MAXT points (the whole plane when it
  // fits): enough warps per block to hide latency, the fewest halo rows.
  int yb = o.blockRows;
  if (!yb) {
    yb = 1;
    for (int r = 1; r <= ny; ++r)
      if (ny % r == 0 && r * nz <= MAXT) yb = r;
  }
  const int halo = yb < ny, threads = (yb * nz + 31) / 32 * 32;
  const size_t smem = 2 * tileElems(yb, nz) * sizeof(double2) + (halo ? 8 * nz * sizeof(int2) : 0);
  std::printf("stencil25 best: grid %dx%dx%d, %d k-points x %d bands (%s), %d applications timed; "
              "%d rows x %d per block%s\n",
              nx, ny, nz, o.nk, o.nb, o.name, o.steps, yb, nz, halo ? " + 8 halo rows" : " (whole plane)");

  std::vector<Complex> hPsi(total);
  unsigned s = 2018u;
  for (Complex& v : hPsi) v.re = uniform(s), v.im = uniform(s);
  const Coefficients coef = makeCoefficients(o.nk);

  double2 *dPsi, *dHpsi;
  static_assert(sizeof(Complex) == sizeof(double2), "host and device complex types differ");
  CUDA_CHECK(cudaMalloc(&dPsi, total * sizeof(double2)));
  CUDA_CHECK(cudaMalloc(&dHpsi, total * sizeof(double2)));
  CUDA_CHECK(cudaMemcpy(dPsi, hPsi.data(), total * sizeof(double2), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_lap, coef.lap, sizeof(coef.lap)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_nab, coef.nab, sizeof(coef.nab)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_C0, coef.C0, sizeof(coef.C0)));
  CUDA_CHECK(cudaMemset(dHpsi, 0xff, total * sizeof(Complex)));  // NaN: an unwritten point fails the check

  CUDA_CHECK(cudaFuncSetAttribute(hpsiMarch, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const dim3 grid(ny / yb, nbands);
  auto apply = [&](int steps) {
    for (int st = 0; st < steps; ++st)
      hpsiMarch<<<grid, threads, smem>>>(dPsi, dHpsi, nx, ny, nz, o.nb, yb, halo);
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
  bench::printResult("stencil25", "best", ms, 32.0 * total * o.steps, 146.0 * total * o.steps, copyGBs, pass);

  CUDA_CHECK(cudaFree(dPsi));
  CUDA_CHECK(cudaFree(dHpsi));
  return pass ? 0 : 1;
}
