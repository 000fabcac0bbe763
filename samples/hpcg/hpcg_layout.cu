// HPCG-like conjugate-gradient solver (seed 002, Doi & Okuno 2016, after the HPCG description):
// the 27-point 3-D problem (diagonal 26, off-diagonals -1, b = A * ones) stored as a general ELL
// sparse matrix, CG preconditioned by one symmetric Gauss-Seidel sweep, parallelised by
// multi-colouring (8 colours; a forward sweep over the colours, then a backward one).
//
// Layout-only variant of hpcg.cu: the same kernels, launches, row numbering, colouring (a colour's
// rows through the same list of row numbers), k loop and arithmetic; only the matrix's storage
// changes. hpcg.cu keeps each row's 27 {value, column} records contiguous (entry (row, k) at
// row * 27 + k), so the lanes of a warp, one row each, read records 432 bytes apart: every load
// is a separate sector. Here the flattened 2-D array of records is
//  * transposed: entry (row, k) at k * nrows + row, so that in SpMV consecutive lanes (rows) read
//    consecutive entries, and in a colour sweep (rows x, x+2, x+4, ... of a grid line) entries
//    two apart;
//  * split into a value array and a column array (SoA): an aligned {value, col} record would be
//    16 bytes with 4 of padding, so SpMV would read 16 bytes a nonzero instead of 12, and a colour
//    sweep, whose lanes are two entries apart, 32 bytes a nonzero instead of 24;
//  * read through the read-only path (const __restrict__: the matrix is never written by a kernel).
// The colour sweeps' gathers z[col] and writes z[i] stay as in hpcg.cu (z is read and written by
// symgsColor, so it is not __restrict__).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../common/bench.h"

static const char* kVariant = "layout";

constexpr int kEll = 27;    // ELL width: nonzeros per row of the 27-point stencil
constexpr int kColors = 8;  // colour = (x%2) + 2(y%2) + 4(z%2): no two neighbours share one
constexpr int kThreads = 256;
constexpr int kDotBlocks = 1024;  // fixed, so dot products sum in the same order on every run

// y = A x. Entry (row, k) of the matrix is val[k * nrows + row], col[k * nrows + row].
__global__ void spmv(const double* __restrict__ val, const int* __restrict__ col, const double* __restrict__ x,
                     double* __restrict__ y, int nrows) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nrows) return;
  double sum = 0.0;
  for (int k = 0; k < kEll; ++k) {
    const size_t e = (size_t)k * nrows + i;
    sum += val[e] * x[col[e]];
  }
  y[i] = sum;
}

// One colour of a Gauss-Seidel sweep on A z = r. The rows of one colour are not coupled to
// each other, so they all update at once; the loop subtracts the diagonal term too, added back.
__global__ void symgsColor(const double* __restrict__ val, const int* __restrict__ col, const double* __restrict__ diag,
                           const double* __restrict__ r, double* z, const int* __restrict__ rows, int count,
                           int nrows) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const int i = rows[t];
  double sum = r[i];
  for (int k = 0; k < kEll; ++k) {
    const size_t e = (size_t)k * nrows + i;
    sum -= val[e] * z[col[e]];
  }
  sum += diag[i] * z[i];
  z[i] = sum / diag[i];
}

// w = alpha x + beta y (w may alias x or y)
__global__ void waxpby(int n, double alpha, const double* x, double beta, const double* y, double* w) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = alpha * x[i] + beta * y[i];
}

// Deterministic dot product: fixed grid, fixed tree per block, then one block sums the partials.
__global__ void dotPartial(const double* a, const double* b, int n, double* partial) {
  __shared__ double s[kThreads];
  double sum = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += a[i] * b[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void sumPartials(const double* partial, int np, double* out) {
  __shared__ double s[kThreads];
  double sum = 0.0;
  for (int i = threadIdx.x; i < np; i += kThreads) sum += partial[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = s[0];
}

// ---------------------------------------------------------------- host side
struct Options {
  int nx = 128, iters = 100;
  bool preset = true;  // size from --size/--tiny: the convergence thresholds apply
};

static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--nx N (2..320)] [--iters K (1..10000)]\n"
               "  grid N^3 (tiny 16^3 x 50 iterations, small 64^3 x 100, medium 128^3 x 100 (default), "
               "large 192^3 x 160)\n",
               prog);
  std::exit(2);
}

static bool parseInt(const char* s, int lo, int hi, int* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--tiny") o.nx = 16, o.iters = 50;
    else if (arg == "--size" && a + 1 < argc) {
      const std::string s = argv[++a];
      if (s == "tiny") o.nx = 16, o.iters = 50;
      else if (s == "small") o.nx = 64, o.iters = 100;
      else if (s == "medium") o.nx = 128, o.iters = 100;
      else if (s == "large") o.nx = 192, o.iters = 160;
      else usage(argv[0]);
    } else if (arg == "--nx" && a + 1 < argc) {
      if (!parseInt(argv[++a], 2, 320, &o.nx)) usage(argv[0]);
      o.preset = false;
    } else if (arg == "--iters" && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 10000, &o.iters)) usage(argv[0]);
      o.preset = false;
    } else usage(argv[0]);
  }
  return o;
}

// (A v) for one grid point, from the stencil itself (the reference never reads the ELL arrays).
static double stencilRow(const std::vector<double>& v, int nx, int x, int y, int z) {
  double s = 0.0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int X = x + dx, Y = y + dy, Z = z + dz;
        if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= nx || Z >= nx) continue;
        s += ((dx | dy | dz) ? -1.0 : 26.0) * v[X + (size_t)nx * (Y + (size_t)nx * Z)];
      }
  return s;
}

static double cpuDot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The same preconditioned CG in double on the CPU, colour by colour as on the GPU.
static void cpuPcg(int nx, int iters, const std::vector<double>& b, std::vector<double>& x) {
  const size_t n = b.size();
  std::vector<double> r = b, z(n), p(n), Ap(n);
  x.assign(n, 0.0);
  double rtz = 0.0;
  for (int it = 1; it <= iters; ++it) {
    std::fill(z.begin(), z.end(), 0.0);
    for (int s = 0; s < 2 * kColors; ++s) {
      const int c = s < kColors ? s : 2 * kColors - 1 - s;
      for (int Z = (c >> 2) & 1; Z < nx; Z += 2)
        for (int Y = (c >> 1) & 1; Y < nx; Y += 2)
          for (int X = c & 1; X < nx; X += 2) {
            const size_t i = X + (size_t)nx * (Y + (size_t)nx * Z);
            z[i] = (r[i] - stencilRow(z, nx, X, Y, Z) + 26.0 * z[i]) / 26.0;
          }
    }
    const double oldrtz = rtz;
    rtz = cpuDot(r, z);
    for (size_t i = 0; i < n; ++i) p[i] = it == 1 ? z[i] : z[i] + rtz / oldrtz * p[i];
    for (int Z = 0; Z < nx; ++Z)
      for (int Y = 0; Y < nx; ++Y)
        for (int X = 0; X < nx; ++X) Ap[X + (size_t)nx * (Y + (size_t)nx * Z)] = stencilRow(p, nx, X, Y, Z);
    const double alpha = rtz / cpuDot(p, Ap);
    for (size_t i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * Ap[i];
  }
}

struct Device {
  int n = 0;
  double* val = nullptr;  // transposed ELL: entry (row, k) at k * n + row
  int* col = nullptr;
  double *diag, *b, *x, *r, *z, *p, *Ap, *partial, *scalar;
  int* colorRows = nullptr;
  std::vector<int> colorStart;
};

static double dot(const Device& d, const double* a, const double* b) {
  dotPartial<<<kDotBlocks, kThreads>>>(a, b, d.n, d.partial);
  sumPartials<<<1, kThreads>>>(d.partial, kDotBlocks, d.scalar);
  double h = 0.0;
  CUDA_CHECK(cudaMemcpy(&h, d.scalar, sizeof(double), cudaMemcpyDeviceToHost));
  return h;
}

static int blocks(int n) { return (n + kThreads - 1) / kThreads; }

// z = M^-1 r: one symmetric Gauss-Seidel sweep from z = 0.
static void symgs(const Device& d) {
  CUDA_CHECK(cudaMemset(d.z, 0, d.n * sizeof(double)));
  for (int s = 0; s < 2 * kColors; ++s) {
    const int c = s < kColors ? s : 2 * kColors - 1 - s;
    const int first = d.colorStart[c], count = d.colorStart[c + 1] - first;
    symgsColor<<<blocks(count), kThreads>>>(d.val, d.col, d.diag, d.r, d.z, d.colorRows + first, count, d.n);
  }
}

// `iters` CG iterations from x = 0; returns ||r0|| and the final ||r||.
static void pcg(const Device& d, int iters, double* normr0, double* normr) {
  const size_t bytes = d.n * sizeof(double);
  CUDA_CHECK(cudaMemcpy(d.r, d.b, bytes, cudaMemcpyDeviceToDevice));  // x0 = 0, so r0 = b
  CUDA_CHECK(cudaMemset(d.x, 0, bytes));
  *normr0 = std::sqrt(dot(d, d.r, d.r));
  double rtz = 0.0;
  for (int it = 1; it <= iters; ++it) {
    symgs(d);
    const double oldrtz = rtz;
    rtz = dot(d, d.r, d.z);
    if (it == 1) CUDA_CHECK(cudaMemcpy(d.p, d.z, bytes, cudaMemcpyDeviceToDevice));
    else waxpby<<<blocks(d.n), kThreads>>>(d.n, 1.0, d.z, rtz / oldrtz, d.p, d.p);
    spmv<<<blocks(d.n), kThreads>>>(d.val, d.col, d.p, d.Ap, d.n);
    const double alpha = rtz / dot(d, d.p, d.Ap);
    waxpby<<<blocks(d.n), kThreads>>>(d.n, 1.0, d.x, alpha, d.p, d.x);
    waxpby<<<blocks(d.n), kThreads>>>(d.n, 1.0, d.r, -alpha, d.Ap, d.r);
    *normr = std::sqrt(dot(d, d.r, d.r));
  }
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const int nx = o.nx, n = nx * nx * nx;

  // Matrix (transposed ELL, values and columns apart), diagonal and right-hand side, in grid order
  // (row = x + nx (y + nx z)): the rows and the order of each row's entries are those of hpcg.cu.
  std::vector<double> val((size_t)n * kEll);
  std::vector<int> col((size_t)n * kEll);
  std::vector<double> diag(n, 26.0), b(n);
  std::vector<int> colorStart(kColors + 1, 0), colorRows(n);
  long long nnz = 0;
  for (int z = 0; z < nx; ++z)
    for (int y = 0; y < nx; ++y)
      for (int x = 0; x < nx; ++x) {
        const int row = x + nx * (y + nx * z);
        int k = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= nx || Z >= nx) continue;
              const int c = X + nx * (Y + nx * Z);
              val[(size_t)k * n + row] = c == row ? 26.0 : -1.0;
              col[(size_t)k++ * n + row] = c;
            }
        nnz += k;
        b[row] = 26.0 - (k - 1);  // row sum: the exact solution is all ones
        for (; k < kEll; ++k) val[(size_t)k * n + row] = 0.0, col[(size_t)k * n + row] = row;  // padding
        ++colorStart[(x & 1) + 2 * (y & 1) + 4 * (z & 1) + 1];
      }
  for (int c = 0; c < kColors; ++c) colorStart[c + 1] += colorStart[c];
  {
    std::vector<int> fill(colorStart.begin(), colorStart.end() - 1);
    for (int z = 0; z < nx; ++z)
      for (int y = 0; y < nx; ++y)
        for (int x = 0; x < nx; ++x) colorRows[fill[(x & 1) + 2 * (y & 1) + 4 * (z & 1)]++] = x + nx * (y + nx * z);
  }

  Device d;
  d.n = n;
  d.colorStart = colorStart;
  const size_t vbytes = n * sizeof(double);
  CUDA_CHECK(cudaMalloc(&d.val, val.size() * sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d.val, val.data(), val.size() * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&d.col, col.size() * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d.col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&d.colorRows, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d.colorRows, colorRows.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  double** vecs[] = {&d.diag, &d.b, &d.x, &d.r, &d.z, &d.p, &d.Ap};
  for (double** v : vecs) CUDA_CHECK(cudaMalloc(v, vbytes));
  CUDA_CHECK(cudaMalloc(&d.partial, kDotBlocks * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d.scalar, sizeof(double)));
  CUDA_CHECK(cudaMemcpy(d.diag, diag.data(), vbytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d.b, b.data(), vbytes, cudaMemcpyHostToDevice));

  // Timed: the whole solve (reset + iters iterations); every repetition does the same work.
  double normr0 = 0.0, normr = 0.0;
  const double ms = bench::medianMs([&] { pcg(d, o.iters, &normr0, &normr); });
  std::vector<double> xSolve(n);
  CUDA_CHECK(cudaMemcpy(xSolve.data(), d.x, vbytes, cudaMemcpyDeviceToHost));

  // Check 1: a short solve against the CPU reference (the whole vector).
  const int checkIters = o.iters < 3 ? o.iters : 3;
  double unused0, unused1;
  pcg(d, checkIters, &unused0, &unused1);
  std::vector<double> xGpu(n), xRef;
  CUDA_CHECK(cudaMemcpy(xGpu.data(), d.x, vbytes, cudaMemcpyDeviceToHost));
  const double copyGBs = bench::copyBandwidthGBs();

  cpuPcg(nx, checkIters, b, xRef);
  double maxDiff = 0.0, maxRef = 0.0;
  for (int i = 0; i < n; ++i) {
    maxDiff = std::fmax(maxDiff, std::fabs(xGpu[i] - xRef[i]));
    maxRef = std::fmax(maxRef, std::fabs(xRef[i]));
  }
  const double err = maxDiff / maxRef;
  // Both sides are double; they differ only in the order of the dot-product sums (~1e-16
  // relative each), which a few well-conditioned CG steps amplify to ~1e-13 at most. A wrong
  // column, value or colour order gives errors of 1e-3 and more.
  const double tol = 1e-9;

  // Check 2: the timed solve converged. The true residual of its x, from the stencil, must
  // match the CG recurrence (within round-off) and, for the preset sizes, be below 1e-6 with x
  // within 1e-4 of ones (measured in double on the CPU: 128^3 x 100 -> 1.1e-7 and 2.5e-6).
  double rr = 0.0, bb = 0.0, xErr = 0.0;
  for (int z = 0; z < nx; ++z)
    for (int y = 0; y < nx; ++y)
      for (int x = 0; x < nx; ++x) {
        const int i = x + nx * (y + nx * z);
        const double t = b[i] - stencilRow(xSolve, nx, x, y, z);
        rr += t * t, bb += b[i] * b[i];
        xErr = std::fmax(xErr, std::fabs(xSolve[i] - 1.0));
      }
  const double trueRel = std::sqrt(rr / bb), recRel = normr / normr0;
  const bool consistent = std::fabs(trueRel - recRel) <= 1e-3 * trueRel + 1e-11;
  const bool converged = !o.preset || (trueRel <= 1e-6 && xErr <= 1e-4);
  const bool pass = err <= tol && consistent && converged;
  std::printf("hpcg %s: %d^3 rows=%d nnz=%lld iters=%d ||r||/||r0||=%.3e true=%.3e max|x-1|=%.3e%s\n", kVariant, nx, n,
              nnz, o.iters, recRel, trueRel, xErr, o.preset ? "" : " (convergence not checked)");
  std::printf("check: %s (max rel err %.3e, tol %.1e, %d iterations vs CPU)%s%s\n", pass ? "PASS" : "FAIL", err, tol,
              checkIters, consistent ? "" : " residual recurrence != true residual",
              converged ? "" : " not converged (tol 1e-6, max|x-1| 1e-4)");

  // Byte model per iteration: the matrix read 3 times (SpMV, forward and backward sweep) at
  // 12 B per nonzero (8 B value + 4 B column), plus 200 B of vector traffic per row
  // (2 sweeps x 32 + zeroing 8, SpMV 16, 3 dots 40, 3 waxpby 72); reset 32 B per row.
  // Flops per iteration: 6 per nonzero (SpMV 2, two sweeps 4) + 15 per row (3 dots, 3 waxpby).
  const double bytes = o.iters * (36.0 * nnz + 200.0 * n) + 32.0 * n;
  const double flops = o.iters * (6.0 * nnz + 15.0 * n);
  bench::printResult("hpcg", kVariant, ms, bytes, flops, copyGBs, pass);

  CUDA_CHECK(cudaFree(d.val));
  CUDA_CHECK(cudaFree(d.col));
  CUDA_CHECK(cudaFree(d.colorRows));
  for (double** v : vecs) CUDA_CHECK(cudaFree(*v));
  CUDA_CHECK(cudaFree(d.partial));
  CUDA_CHECK(cudaFree(d.scalar));
  return pass ? 0 : 1;
}
