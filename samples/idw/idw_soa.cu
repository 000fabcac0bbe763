// Inverse-distance-weighted (IDW) interpolation of scattered 2-D data, after Mei & Tian (2016),
// one of the evaluation programs of seed 001 (Nakai & Ohno 2017). Each data point carries a
// position (x, y) and a measured value z (e.g. an elevation); each query point of an output
// raster gets z = sum_j w_j z_j / sum_j w_j with w_j = 1 / d_j^p over ALL data points, p = 2
// (so w_j = 1 / d_j^2 and no square root is needed).
//
// Structure-of-arrays port of idw.cu: one array per field (data px, py, pz; queries qx, qy,
// qz); the kernel is otherwise unchanged (one thread per query, looping over every point).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/bench.h"

constexpr int kThreads = 256;
// d^2 floor: a query that coincides with a data point takes that point's value (its weight
// 1e12 swamps the others) instead of dividing by zero.
constexpr float kMinD2 = 1e-12f;

// Data point j: (px[j], py[j]) with value pz[j]; query i: (qx[i], qy[i]), output qz[i].
__global__ void idw(const float* px, const float* py, const float* pz, int n, const float* qxs, const float* qys,
                    float* qz, int m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const float qx = qxs[i], qy = qys[i];
  float sw = 0.0f, swz = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float dx = qx - px[j];
    const float dy = qy - py[j];
    const float w = 1.0f / fmaxf(dx * dx + dy * dy, kMinD2);  // power 2
    sw += w;
    swz += w * pz[j];
  }
  qz[i] = swz / sw;
}

// ---------------------------------------------------------------- host side
static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--points N (16..2097152)] "
               "[--queries M (1..8388608)]\n"
               "  data points x queries: tiny 1Ki x 1Ki, small 64Ki x 256Ki, medium 256Ki x 1Mi (default), "
               "large 512Ki x 2Mi\n",
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

static unsigned lcg = 20160901u;
static float uniform01() {  // deterministic, in [0, 1)
  lcg = lcg * 1664525u + 1013904223u;
  return (lcg >> 8) * (1.0f / 16777216.0f);
}

int main(int argc, char** argv) {
  int n = 1 << 18, m = 1 << 20;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--tiny") n = 1 << 10, m = 1 << 10;
    else if (arg == "--size" && a + 1 < argc) {
      const std::string s = argv[++a];
      if (s == "tiny") n = 1 << 10, m = 1 << 10;
      else if (s == "small") n = 1 << 16, m = 1 << 18;
      else if (s == "medium") n = 1 << 18, m = 1 << 20;
      else if (s == "large") n = 1 << 19, m = 1 << 21;
      else usage(argv[0]);
    } else if (arg == "--points" && a + 1 < argc) {
      if (!parseInt(argv[++a], 16, 1 << 21, &n)) usage(argv[0]);
    } else if (arg == "--queries" && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 1 << 23, &m)) usage(argv[0]);
    } else usage(argv[0]);
  }

  // Data: uniform random positions in the unit square; value = smooth surface + noise.
  std::vector<float> px(n), py(n), pz(n);
  for (int j = 0; j < n; ++j) {
    px[j] = uniform01();
    py[j] = uniform01();
    pz[j] = 1.0f + 0.5f * std::sin(6.2831853f * px[j]) * std::cos(6.2831853f * py[j]) + 0.25f * (uniform01() - 0.5f);
  }
  // Queries: the cell centres of a W x W raster over the unit square, row by row (first m).
  const int W = (int)std::ceil(std::sqrt((double)m));
  std::vector<float> qx(m), qy(m), qz(m, 0.0f);
  for (int i = 0; i < m; ++i) qx[i] = ((i % W) + 0.5f) / W, qy[i] = ((i / W) + 0.5f) / W;

  float *dPx, *dPy, *dPz, *dQx, *dQy, *dQz;
  float** pArrays[] = {&dPx, &dPy, &dPz};
  float** qArrays[] = {&dQx, &dQy, &dQz};
  for (float** a : pArrays) CUDA_CHECK(cudaMalloc(a, n * sizeof(float)));
  for (float** a : qArrays) CUDA_CHECK(cudaMalloc(a, m * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dPx, px.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dPy, py.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dPz, pz.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dQx, qx.data(), m * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dQy, qy.data(), m * sizeof(float), cudaMemcpyHostToDevice));

  // Timed: one interpolation of every query (the kernel only rewrites qz).
  const int blocks = (m + kThreads - 1) / kThreads;
  const double ms = bench::medianMs([&] { idw<<<blocks, kThreads>>>(dPx, dPy, dPz, n, dQx, dQy, dQz, m); });
  CUDA_CHECK(cudaMemcpy(qz.data(), dQz, m * sizeof(float), cudaMemcpyDeviceToHost));
  const double copyGBs = bench::copyBandwidthGBs();

  // Check: double-precision reference on an evenly spread subset of the queries.
  // Tolerance: the GPU sums n float weights one after the other. Once a very close data point
  // has made the sum large, the far points' weights fall below half an ulp of it and are lost,
  // so the error grows with n; measured on the CPU with the same float algorithm (max over 512
  // queries): 3e-6 at 1Ki points, 2.7e-4 at 64Ki, 1.0e-3 at 256Ki, 2.1e-3 at 512Ki. We allow
  // n * 2^-25 (about 7x that), at least 2e-5. Wrong fields (x <-> y swapped, a neighbour's
  // value) give errors above 0.4 on this data.
  const int samples = std::min(m, 512);
  double maxErr = 0.0;
  for (int s = 0; s < samples; ++s) {
    const int i = (int)((long long)s * m / samples);
    double sw = 0.0, swz = 0.0;
    for (int j = 0; j < n; ++j) {
      const double dx = (double)qx[i] - px[j], dy = (double)qy[i] - py[j];
      const double w = 1.0 / std::max(dx * dx + dy * dy, (double)kMinD2);
      sw += w;
      swz += w * pz[j];
    }
    const double ref = swz / sw;
    maxErr = std::max(maxErr, std::fabs(qz[i] - ref) / std::fabs(ref));
  }
  const double tol = std::max(2e-5, n * std::ldexp(1.0, -25));
  const bool pass = maxErr <= tol;  // false for NaN too
  std::printf("idw soa: %d data points x %d queries (raster %d wide), %d queries checked\n", n, m, W, samples);
  std::printf("check: %s (max rel err %.3e, tol %.1e)\n", pass ? "PASS" : "FAIL", maxErr, tol);

  // Byte model: each data point read once (12 B), each query read (8 B) and written (4 B).
  // Flop model: 9 per (query, point) pair (2 sub, 3 for d^2, 1 reciprocal, 1 add, 2 for the
  // fused multiply-add), 1 division per query.
  const double bytes = 12.0 * n + 12.0 * m;
  const double flops = 9.0 * n * (double)m + m;
  bench::printResult("idw", "soa", ms, bytes, flops, copyGBs, pass);

  for (float** a : pArrays) CUDA_CHECK(cudaFree(*a));
  for (float** a : qArrays) CUDA_CHECK(cudaFree(*a));
  return pass ? 0 : 1;
}
