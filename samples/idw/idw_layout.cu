// Inverse-distance-weighted (IDW) interpolation of scattered 2-D data, after Mei & Tian (2016),
// one of the evaluation programs of seed 001 (Nakai & Ohno 2017). Each data point carries a
// position (x, y) and a measured value z (e.g. an elevation); each query point of an output
// raster gets z = sum_j w_j z_j / sum_j w_j with w_j = 1 / d_j^p over ALL data points, p = 2
// (so w_j = 1 / d_j^2 and no square root is needed).
//
// Layout-only variant: the fastest layout of idw.cu's data found by hand, with everything else
// as in the AoS original (one thread per query, 256 threads a block, the same loop over every
// data point in the same order, the same IEEE division). Only where the fields live and how they
// are loaded changes:
//  * data points: every lane of a warp reads the same point at the same time (a broadcast), so
//    the cost is load instructions, not bytes. Each point is one 16-byte aligned record
//    {x, y, z, unused} (Mei & Tian's AoS-align), read with one 16-byte load through the
//    read-only path (ld.global.nc.v4.f32) instead of three 4-byte loads;
//  * queries: read once and written once, one per thread, so their fields go to separate arrays:
//    the position as an 8-byte aligned {x, y} record (one coalesced 8-byte load), the output z
//    its own array (one coalesced 4-byte store).
// Measured: docs/results/ceiling-h200.md. Tiles of 4 points as 3 float4 ({x0..x3}, {y0..y3},
// {z0..z3}: 3 loads per 4 points, AoSoA) were slower, as slow as idw.cu, when this was written.
// idw_best.cu's further gains (shared-memory tiles, 4 queries a thread, the approximate reciprocal)
// are not layout changes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/bench.h"

static const char* kVariant = "layout";

struct __align__(16) DataPoint {
  float x, y;  // position
  float z;     // measured value
  float pad;   // unused: makes the record one 16-byte load
};

struct __align__(8) QueryPos {
  float x, y;  // position of a query (its interpolated value is a separate array)
};

constexpr int kThreads = 256;
// d^2 floor: a query that coincides with a data point takes that point's value (its weight
// 1e12 swamps the others) instead of dividing by zero.
constexpr float kMinD2 = 1e-12f;

// Data point j: pts[j] = {x, y, z, unused}; query i at qpos[i], output qz[i]. Nothing the kernel
// reads is written by it, so the inputs go through the read-only data path.
__global__ void idw(const DataPoint* __restrict__ pts, int n, const QueryPos* __restrict__ qpos, float* __restrict__ qz,
                    int m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const QueryPos q = qpos[i];  // one 8-byte load
  const float qx = q.x, qy = q.y;
  float sw = 0.0f, swz = 0.0f;
  for (int j = 0; j < n; ++j) {
    const DataPoint p = pts[j];  // one 16-byte load, the same address for the whole warp
    const float dx = qx - p.x;
    const float dy = qy - p.y;
    const float w = 1.0f / fmaxf(dx * dx + dy * dy, kMinD2);  // power 2
    sw += w;
    swz += w * p.z;
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
  std::vector<DataPoint> pts(n);
  for (DataPoint& p : pts) {
    p.x = uniform01();
    p.y = uniform01();
    p.z = 1.0f + 0.5f * std::sin(6.2831853f * p.x) * std::cos(6.2831853f * p.y) + 0.25f * (uniform01() - 0.5f);
    p.pad = 0.0f;
  }
  // Queries: the cell centres of a W x W raster over the unit square, row by row (first m).
  const int W = (int)std::ceil(std::sqrt((double)m));
  std::vector<QueryPos> q(m);
  std::vector<float> qz(m, 0.0f);
  for (int i = 0; i < m; ++i) q[i] = {((i % W) + 0.5f) / W, ((i / W) + 0.5f) / W};

  DataPoint* dPts;
  QueryPos* dQ;
  float* dQz;
  CUDA_CHECK(cudaMalloc(&dPts, n * sizeof(DataPoint)));
  CUDA_CHECK(cudaMalloc(&dQ, m * sizeof(QueryPos)));
  CUDA_CHECK(cudaMalloc(&dQz, m * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dPts, pts.data(), n * sizeof(DataPoint), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dQ, q.data(), m * sizeof(QueryPos), cudaMemcpyHostToDevice));

  // Timed: one interpolation of every query (the kernel only rewrites qz).
  const int blocks = (m + kThreads - 1) / kThreads;
  const double ms = bench::medianMs([&] { idw<<<blocks, kThreads>>>(dPts, n, dQ, dQz, m); });
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
      const double dx = (double)q[i].x - pts[j].x, dy = (double)q[i].y - pts[j].y;
      const double w = 1.0 / std::max(dx * dx + dy * dy, (double)kMinD2);
      sw += w;
      swz += w * pts[j].z;
    }
    const double ref = swz / sw;
    maxErr = std::max(maxErr, std::fabs(qz[i] - ref) / std::fabs(ref));
  }
  const double tol = std::max(2e-5, n * std::ldexp(1.0, -25));
  const bool pass = maxErr <= tol;  // false for NaN too
  std::printf("idw %s: %d data points x %d queries (raster %d wide), %d queries checked\n", kVariant, n, m, W, samples);
  std::printf("check: %s (max rel err %.3e, tol %.1e)\n", pass ? "PASS" : "FAIL", maxErr, tol);

  // Byte model: each data point read once (12 B), each query read (8 B) and written (4 B).
  // Flop model: 9 per (query, point) pair (2 sub, 3 for d^2, 1 reciprocal, 1 add, 2 for the
  // fused multiply-add), 1 division per query.
  const double bytes = 12.0 * n + 12.0 * m;
  const double flops = 9.0 * n * (double)m + m;
  bench::printResult("idw", kVariant, ms, bytes, flops, copyGBs, pass);

  CUDA_CHECK(cudaFree(dPts));
  CUDA_CHECK(cudaFree(dQ));
  CUDA_CHECK(cudaFree(dQz));
  return pass ? 0 : 1;
}
