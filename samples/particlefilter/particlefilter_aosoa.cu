// particlefilter: tracks a disk through a noisy synthetic video with a sampling-importance-
// resampling particle filter, after the method of Rodinia's particlefilter: per frame every
// particle moves by the motion model plus noise, its likelihood is summed over a disk of pixels
// around it, weights are normalised (reduction), their CDF is built (prefix sum) and systematic
// resampling searches the CDF for each particle.
// AoSoA variant: the Particle struct of particlefilter.cu stored as an array of structures of
// arrays, tiles of 32 particles (struct ParticleTile { float x[32]; ... }): particle i is lane
// i % 32 of tile i / 32. A warp's 32 consecutive particles then read one field as one contiguous
// 128-byte row, as in SoA, while all fields of a particle stay within one 1280-byte tile.
// Everything else (kernels, launch configuration, arithmetic, plain pointers) is as in
// particlefilter.cu; this variant measures whether AoSoA beats plain SoA (particlefilter_soa.cu).
// It does not (docs/results/ceiling-h200.md).
#include "../common/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int kBlock = 256;  // threads per block; the reduction and scan trees depend on it
constexpr int kRadius = 5;   // of the object disk, in pixels
constexpr int kObject = 228, kBackground = 100;

static const char* kVariant = "aosoa";

// The fields of 32 consecutive particles, each field as one 32-wide row (1280 bytes a tile).
constexpr int kTileShift = 5, kTile = 1 << kTileShift;  // particle i: tile i >> 5, lane i & 31
struct ParticleTile {
  float x[kTile], y[kTile];    // position (pixels)
  float xj[kTile], yj[kTile];  // position drawn by resampling
  float weight[kTile];
  float likelihood[kTile];
  float cdf[kTile];      // cumulative distribution of the weights, at this particle
  float u[kTile];        // this particle's systematic-resampling threshold
  int index[kTile];      // particle chosen by resampling
  unsigned seed[kTile];  // per-particle random number state
};

// ---- Arithmetic shared by the kernels and the CPU reference, written so that both round alike:
// the GPU then matches the reference bit for bit, which resampling needs (one flipped bit in a
// weight can pick a different particle). -------------------------------------------------------
// Gaussian-like noise: sum of 12 uniforms on a 2^-16 grid, minus 6. Exact in float, so the
// motion steps 1 + 5 n and -2 + 2 n are exact whether or not the compiler fuses them.
__host__ __device__ inline float gaussian(unsigned& s) {
  int acc = 0;
  for (int k = 0; k < 12; ++k) {
    s = s * 1664525u + 1013904223u;
    acc += int(s >> 16);
  }
  return float(acc - 6 * 65536) * (1.0f / 65536.0f);
}

__host__ __device__ inline void propagate(float& x, float& y, unsigned& seed) {  // drift +1, -2 px
  x = x + (1.0f + 5.0f * gaussian(seed));
  y = y + (-2.0f + 2.0f * gaussian(seed));
}

constexpr int diskPixels() {
  int count = 0;
  for (int dy = -kRadius; dy <= kRadius; ++dy)
    for (int dx = -kRadius; dx <= kRadius; ++dx) count += dx * dx + dy * dy <= kRadius * kRadius;
  return count;
}
constexpr int kDisk = diskPixels();

// Log-likelihood ratio of object against background, averaged over the disk of pixels around
// (x, y); per pixel ((I - 100)^2 - (I - 228)^2) / (2 sigma^2), sigma = 5, summed exactly in integers.
__host__ __device__ inline float diskLikelihood(const unsigned char* frame, int size, float x, float y) {
  const int cx = (int)roundf(x), cy = (int)roundf(y);
  int acc = 0;
#pragma unroll
  for (int dy = -kRadius; dy <= kRadius; ++dy)
#pragma unroll
    for (int dx = -kRadius; dx <= kRadius; ++dx)
      if (dx * dx + dy * dy <= kRadius * kRadius) {
        const int px = cx + dx < 0 ? 0 : cx + dx >= size ? size - 1 : cx + dx;
        const int py = cy + dy < 0 ? 0 : cy + dy >= size ? size - 1 : cy + dy;
        const int v = frame[py * size + px];
        acc += (v - kBackground) * (v - kBackground) - (v - kObject) * (v - kObject);
      }
  return float(acc) / (50.0f * kDisk);
}

// exp(t) for t <= 0 from explicit fmaf steps: expf differs in the last bit between the CUDA and
// host math libraries, this does not. Relative error about 2e-7; exp(t < -87) flushes to 0.
__host__ __device__ inline float weightExp(float t) {
  if (t < -87.0f) return 0.0f;
  const float k = rintf(t * 1.44269504f);
  const float r = fmaf(-k, 1.428606820309417e-6f, fmaf(-k, 0.693145751953125f, t));  // t - k ln 2
  float p = 1.0f / 720.0f;  // Taylor series to degree 6 on |r| <= ln(2) / 2
  for (float c : {1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) p = fmaf(p, r, c);
  return p * ldexpf(1.0f, int(k));
}

__host__ __device__ inline unsigned initialSeed(int i) { return (unsigned(i) + 1u) * 2654435761u ^ 0x5bd1e995u; }

struct Sum {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
  __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// ---- Kernels: the particles as tiles of 32 (AoSoA); t = p[i >> kTileShift], l = i & (kTile - 1) ---------
template <typename Op>
__device__ float blockReduce(float v, float* sh, Op op) {  // fixed tree: deterministic
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = op(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();
  return r;
}

// Inclusive Hillis-Steele scan of one value per thread; `sh` holds 2 * kBlock floats.
__device__ float blockScan(float v, float* sh) {
  int cur = 0;
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int off = 1; off < kBlock; off <<= 1) {
    const int t = threadIdx.x;
    sh[(1 - cur) * kBlock + t] = t >= off ? sh[cur * kBlock + t] + sh[cur * kBlock + t - off] : sh[cur * kBlock + t];
    cur = 1 - cur;
    __syncthreads();
  }
  const float r = sh[cur * kBlock + threadIdx.x];
  __syncthreads();
  return r;
}

// One block: combines the per-block partials (strided per thread, then the tree).
template <typename Op>
__global__ void finish(const float* part, int count, float identity, Op op, float* out) {
  __shared__ float sh[kBlock];
  float v = identity;
  for (int k = threadIdx.x; k < count; k += kBlock) v = op(v, part[k]);
  v = blockReduce(v, sh, op);
  if (threadIdx.x == 0) *out = v;
}

__global__ void init_particles(ParticleTile* p, float x0, float y0, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ParticleTile& t = p[i >> kTileShift];
  const int l = i & (kTile - 1);
  t.x[l] = x0, t.y[l] = y0, t.xj[l] = x0, t.yj[l] = y0;
  t.weight[l] = 1.0f / n, t.likelihood[l] = 0.0f, t.cdf[l] = 0.0f, t.u[l] = 0.0f;
  t.index[l] = i, t.seed[l] = initialSeed(i);
}

// Motion model, then the likelihood of the particle's disk in this frame; block maxima.
__global__ void likelihood_kernel(ParticleTile* p, const unsigned char* frame, int size, int n, float* block_max) {
  __shared__ float sh[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float like = -INFINITY;
  if (i < n) {
    ParticleTile& t = p[i >> kTileShift];
    const int l = i & (kTile - 1);
    unsigned s = t.seed[l];
    float x = t.x[l], y = t.y[l];
    propagate(x, y, s);
    t.x[l] = x, t.y[l] = y, t.seed[l] = s;
    like = diskLikelihood(frame, size, x, y);
    t.likelihood[l] = like;
  }
  const float m = blockReduce(like, sh, Max());
  if (threadIdx.x == 0) block_max[blockIdx.x] = m;
}

__global__ void weight_kernel(ParticleTile* p, const float* max_like, int n, float* block_sum) {
  __shared__ float sh[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = 0.0f;
  if (i < n) {
    ParticleTile& t = p[i >> kTileShift];
    const int l = i & (kTile - 1);
    w = t.weight[l] * weightExp(t.likelihood[l] - *max_like);  // the best particle gets exp(0) = 1
    t.weight[l] = w;
  }
  const float s = blockReduce(w, sh, Sum());
  if (threadIdx.x == 0) block_sum[blockIdx.x] = s;
}

// Normalises the weights, scans them within the block and sums the block's share of the
// estimate sum(w x), sum(w y).
__global__ void normalize_kernel(ParticleTile* p, const float* total, int n, float* block_total, float* block_x,
                                 float* block_y) {
  __shared__ float sh[2 * kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = i & (kTile - 1);
  float w = 0.0f, wx = 0.0f, wy = 0.0f;
  if (i < n) {
    ParticleTile& t = p[i >> kTileShift];
    w = t.weight[l] / *total;
    t.weight[l] = w;
    wx = w * t.x[l], wy = w * t.y[l];
  }
  const float c = blockScan(w, sh);
  if (i < n) p[i >> kTileShift].cdf[l] = c;
  if (threadIdx.x == kBlock - 1) block_total[blockIdx.x] = c;
  const float sx = blockReduce(wx, sh, Sum()), sy = blockReduce(wy, sh, Sum());
  if (threadIdx.x == 0) block_x[blockIdx.x] = sx, block_y[blockIdx.x] = sy;
}

// One block: exclusive scan of the block totals in chunks of kBlock, and the frame's estimate.
__global__ void scan_totals(const float* block_total, int count, float* offset, const float* block_x,
                            const float* block_y, float* estimate) {
  __shared__ float sh[2 * kBlock];
  __shared__ float last[kBlock];
  const int t = threadIdx.x;
  float carry = 0.0f;
  for (int base = 0; base < count; base += kBlock) {
    const float c = blockScan(base + t < count ? block_total[base + t] : 0.0f, sh);
    last[t] = c;
    __syncthreads();
    if (base + t < count) offset[base + t] = t == 0 ? carry : carry + last[t - 1];
    carry = carry + last[kBlock - 1];
    __syncthreads();
  }
  float sx = 0.0f, sy = 0.0f;
  for (int k = t; k < count; k += kBlock) sx += block_x[k], sy += block_y[k];
  sx = blockReduce(sx, sh, Sum());
  sy = blockReduce(sy, sh, Sum());
  if (t == 0) estimate[0] = sx, estimate[1] = sy;
}

__global__ void add_offsets(ParticleTile* p, const float* offset, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    ParticleTile& t = p[i >> kTileShift];
    const int l = i & (kTile - 1);
    t.cdf[l] = offset[blockIdx.x] + t.cdf[l];
  }
}

// Systematic resampling: thresholds u1 + j/n, each searched in the CDF (binary search).
__global__ void resample_kernel(ParticleTile* p, float u1, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  ParticleTile& t = p[j >> kTileShift];
  const int l = j & (kTile - 1);
  const float u = u1 + float(j) / float(n);
  t.u[l] = u;
  int lo = 0, hi = n - 1;  // first particle whose CDF reaches u (the last one if rounding left none)
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (p[mid >> kTileShift].cdf[mid & (kTile - 1)] < u) lo = mid + 1;
    else hi = mid;
  }
  const ParticleTile& s = p[lo >> kTileShift];  // the chosen particle
  const int sl = lo & (kTile - 1);
  t.index[l] = lo;
  t.xj[l] = s.x[sl];
  t.yj[l] = s.y[sl];
}

__global__ void reset_kernel(ParticleTile* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ParticleTile& t = p[i >> kTileShift];
  const int l = i & (kTile - 1);
  t.x[l] = t.xj[l];
  t.y[l] = t.yj[l];
  t.weight[l] = 1.0f / n;
}

// ---- Synthetic video, CPU reference, options and check (layout-independent) ----------------------
struct HostParticle {  // the reference's particle, and what the check compares
  float x, y, xj, yj, weight, likelihood, cdf, u;
  int index;
  unsigned seed;
};

struct Video {
  int frames = 0, size = 0, x0 = 0, y0 = 0;  // frames + 1 square images; the object starts at (x0, y0)
  std::vector<unsigned char> pixels;
  float trueX(int k) const { return float(x0 + k); }  // it moves +1, -2 pixels per frame
  float trueY(int k) const { return float(y0 - 2 * k); }
};

static Video makeVideo(int frames) {
  Video v;
  v.frames = frames;
  v.size = std::max(128, (2 * frames + 64 + 63) / 64 * 64);
  v.x0 = 32, v.y0 = v.size - 32;
  v.pixels.resize((size_t)(frames + 1) * v.size * v.size);
  unsigned long long s = 0x9E3779B97F4A7C15ULL;
  size_t at = 0;
  for (int k = 0; k <= frames; ++k)
    for (int py = 0; py < v.size; ++py)
      for (int px = 0; px < v.size; ++px) {
        const double dx = px - v.trueX(k), dy = py - v.trueY(k);
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double sum = 0;  // 4 uniforms: roughly normal noise of standard deviation 5
        for (int q = 0; q < 4; ++q) sum += double((s >> (16 * q)) & 0xFFFF) / 65536.0;
        const double base = dx * dx + dy * dy <= kRadius * kRadius ? kObject : kBackground;
        const double val = base + 5.0 * std::sqrt(3.0) * (sum - 2.0);
        v.pixels[at++] = (unsigned char)std::min(255.0, std::max(0.0, std::round(val)));
      }
  return v;
}

// The kernels' trees and scans replayed in the same order, so that every float matches.
template <typename Op>
static float tree(float* a, Op op) {
  for (int s = kBlock / 2; s > 0; s >>= 1)
    for (int t = 0; t < s; ++t) a[t] = op(a[t], a[t + s]);
  return a[0];
}
static void scan(float* a) {
  float b[kBlock];
  for (int off = 1; off < kBlock; off <<= 1) {
    for (int t = 0; t < kBlock; ++t) b[t] = t >= off ? a[t] + a[t - off] : a[t];
    std::copy(b, b + kBlock, a);
  }
}

static void reference(const Video& v, int n, int frames, const std::vector<float>& u1, std::vector<HostParticle>& p,
                      std::vector<double>& est) {
  const int G = (n + kBlock - 1) / kBlock, S = v.size;
  p.resize(n);
  for (int i = 0; i < n; ++i)
    p[i] = {v.trueX(0), v.trueY(0), v.trueX(0), v.trueY(0), 1.0f / n, 0.0f, 0.0f, 0.0f, i, initialSeed(i)};
  std::vector<float> part(G), offset(G), buf(kBlock);
  // Per-block trees over value(i), then the one-block finish over the partials.
  auto reduce = [&](float identity, auto op, auto value) {
    for (int b = 0; b < G; ++b) {
      for (int t = 0; t < kBlock; ++t) buf[t] = b * kBlock + t < n ? value(b * kBlock + t) : identity;
      part[b] = tree(buf.data(), op);
    }
    for (int t = 0; t < kBlock; ++t) {
      buf[t] = identity;
      for (int k = t; k < G; k += kBlock) buf[t] = op(buf[t], part[k]);
    }
    return tree(buf.data(), op);
  };
  est.assign(2 * (frames + 1), 0.0);
  for (int k = 1; k <= frames; ++k) {
    for (HostParticle& q : p) {
      propagate(q.x, q.y, q.seed);
      q.likelihood = diskLikelihood(&v.pixels[(size_t)k * S * S], S, q.x, q.y);
    }
    const float maxLike = reduce(-INFINITY, Max(), [&](int i) { return p[i].likelihood; });
    for (HostParticle& q : p) q.weight = q.weight * weightExp(q.likelihood - maxLike);
    const float total = reduce(0.0f, Sum(), [&](int i) { return p[i].weight; });
    for (int b = 0; b < G; ++b) {  // block scans: local CDF in p.cdf, block totals in part
      for (int t = 0; t < kBlock; ++t) {
        const int i = b * kBlock + t;
        buf[t] = i < n ? (p[i].weight = p[i].weight / total) : 0.0f;
      }
      scan(buf.data());
      for (int t = 0; t < kBlock && b * kBlock + t < n; ++t) p[b * kBlock + t].cdf = buf[t];
      part[b] = buf[kBlock - 1];
    }
    float carry = 0.0f;
    for (int base = 0; base < G; base += kBlock) {
      for (int t = 0; t < kBlock; ++t) buf[t] = base + t < G ? part[base + t] : 0.0f;
      scan(buf.data());
      for (int t = 0; t < kBlock && base + t < G; ++t) offset[base + t] = t == 0 ? carry : carry + buf[t - 1];
      carry = carry + buf[kBlock - 1];
    }
    for (int i = 0; i < n; ++i) {
      p[i].cdf = offset[i / kBlock] + p[i].cdf;
      est[2 * k] += double(p[i].weight) * p[i].x, est[2 * k + 1] += double(p[i].weight) * p[i].y;
    }
    for (int j = 0; j < n; ++j) {
      p[j].u = u1[k] + float(j) / float(n);
      int lo = 0, hi = n - 1;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (p[mid].cdf < p[j].u) lo = mid + 1;
        else hi = mid;
      }
      p[j].index = lo, p[j].xj = p[lo].x, p[j].yj = p[lo].y;
    }
    for (HostParticle& q : p) q.x = q.xj, q.y = q.yj, q.weight = 1.0f / n;
  }
}

static void usage(const char* prog) {
  std::fprintf(stderr,
               "usage: %s [--size tiny|small|medium|large] [--tiny] [--particles N] [--frames F]\n"
               "  N particles (1..67108864; tiny 4096, small 65536, medium 1048576, large 8388608 = default)\n"
               "  tracking over F frames (1..500; tiny 8, small 40, medium 100, large 160)\n",
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

static void parseOptions(int argc, char** argv, int* n, int* frames) {
  static const struct {
    const char* name;
    int n, frames;
  } sizes[] = {{"tiny", 4096, 8}, {"small", 65536, 40}, {"medium", 1 << 20, 100}, {"large", 1 << 23, 160}};
  *n = 1 << 23, *frames = 160;
  for (int a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    const char* size = nullptr;
    if (!std::strcmp(arg, "--tiny")) size = "tiny";
    else if (!std::strcmp(arg, "--size") && a + 1 < argc) size = argv[++a];
    if (size) {
      int k = 0;
      while (k < 4 && std::strcmp(size, sizes[k].name)) ++k;
      if (k == 4) usage(argv[0]);
      *n = sizes[k].n, *frames = sizes[k].frames;
    } else if (!std::strcmp(arg, "--particles") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 1 << 26, n)) usage(argv[0]);
    } else if (!std::strcmp(arg, "--frames") && a + 1 < argc) {
      if (!parseInt(argv[++a], 1, 500, frames)) usage(argv[0]);
    } else usage(argv[0]);
  }
}

// Thresholds of systematic resampling: u1 in [0, 1/n) per frame, from a fixed seed.
static std::vector<float> resamplingStarts(int frames, int n) {
  std::vector<float> u1(frames + 1);
  unsigned long long s = 0xD1B54A32D192ED03ULL;
  for (float& u : u1) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    u = float(s >> 40) * (1.0f / 16777216.0f) / float(n);
  }
  return u1;
}

// `track`: estimates of the timed run (all frames); `got`/`gotEst`: particles and estimates after
// the short check run of `checkFrames` frames. Prints the check and the result line.
static int checkAndReport(const char* variant, const Video& v, int n, double ms, const std::vector<float>& track,
                          const std::vector<HostParticle>& got, const std::vector<float>& gotEst, int checkFrames,
                          const std::vector<float>& u1) {
  double trackErr = 0;
  for (int k = 1; k <= v.frames; ++k) {
    const double ex = std::fabs(track[2 * k] - v.trueX(k)), ey = std::fabs(track[2 * k + 1] - v.trueY(k));
    trackErr = std::max(trackErr, std::isfinite(ex + ey) ? std::max(ex, ey) : 1e30);
  }
  std::vector<HostParticle> want;
  std::vector<double> wantEst;
  reference(v, n, checkFrames, u1, want, wantEst);
  long long differ = 0;
  for (int i = 0; i < n; ++i) {
    const HostParticle &a = got[i], &b = want[i];
    differ += !(a.x == b.x && a.y == b.y && a.weight == b.weight && a.likelihood == b.likelihood && a.cdf == b.cdf &&
                a.u == b.u && a.index == b.index && a.seed == b.seed && a.xj == b.xj && a.yj == b.yj);
  }
  // The estimates are sums of products, which the GPU may fuse (FMA): float rounding over a tree
  // of log2(n) levels stays below 1e-6 relative; a wrong field moves them by pixels.
  double estErr = 0;
  for (int k = 1; k <= checkFrames; ++k)
    for (int c = 0; c < 2; ++c) {
      const double e = std::fabs(gotEst[2 * k + c] - wantEst[2 * k + c]) / std::max(1.0, std::fabs(wantEst[2 * k + c]));
      estErr = std::max(estErr, std::isfinite(e) ? e : 1e30);
    }
  const double tol = 1e-5, trackTol = 1.0;  // the filter locks onto the pixel of the object's centre
  const bool pass = differ == 0 && estErr <= tol && trackErr <= trackTol;
  std::printf("check: after %d frames %lld of %d particles differ from the CPU reference (must be bitwise equal)\n",
              checkFrames, differ, n);
  std::printf("check: tracking error over %d frames %.3f px (tol %.0f px)\n", v.frames, trackErr, trackTol);
  std::printf("check: %s (max rel err %.3g, tol %.1g)\n", pass ? "PASS" : "FAIL", estErr, tol);
  // Bytes: the fewest each frame must move per particle (each kernel's fields once: 28 likelihood,
  // 12 weight, 20 normalize, 8 offsets, 28 resample, 20 reset) plus one video frame; 40 to start.
  // Operations: 6 per disk pixel, 48 for the random numbers, about 40 + log2(n) for the rest.
  const double bytes = double(v.frames) * (116.0 * n + double(v.size) * v.size) + 40.0 * n;
  const double ops = double(v.frames) * n * (88.0 + 6.0 * kDisk + std::log2(double(n)));
  bench::printResult("particlefilter", variant, ms, bytes, ops, bench::copyBandwidthGBs(), pass);
  return pass ? 0 : 1;
}

// ---- Driver -----------------------------------------------------------------------------------------
int main(int argc, char** argv) {
  int n, frames;
  parseOptions(argc, argv, &n, &frames);
  const Video v = makeVideo(frames);
  const std::vector<float> u1 = resamplingStarts(frames, n);
  const int checkFrames = std::min(frames, n <= (1 << 20) ? 8 : 2);
  std::printf("particlefilter %s: %d particles, %d frames of %dx%d pixels\n", kVariant, n, frames, v.size, v.size);

  const int G = (n + kBlock - 1) / kBlock;
  const int tiles = (n + kTile - 1) / kTile;  // the last one partly used when 32 does not divide n
  ParticleTile* d_p;
  unsigned char* d_video;
  float *d_part, *d_total, *d_x, *d_y, *d_offset, *d_scalar, *d_est;
  CUDA_CHECK(cudaMalloc(&d_p, tiles * sizeof(ParticleTile)));
  CUDA_CHECK(cudaMalloc(&d_video, v.pixels.size()));
  for (float** a : {&d_part, &d_total, &d_x, &d_y, &d_offset}) CUDA_CHECK(cudaMalloc(a, G * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_scalar, 2 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_est, 2 * (frames + 1) * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_video, v.pixels.data(), v.pixels.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_est, 0, 2 * (frames + 1) * sizeof(float)));

  auto run = [&](int count) {
    init_particles<<<G, kBlock>>>(d_p, v.trueX(0), v.trueY(0), n);
    for (int k = 1; k <= count; ++k) {
      const unsigned char* frame = d_video + (size_t)k * v.size * v.size;
      likelihood_kernel<<<G, kBlock>>>(d_p, frame, v.size, n, d_part);
      finish<<<1, kBlock>>>(d_part, G, -INFINITY, Max(), d_scalar);
      weight_kernel<<<G, kBlock>>>(d_p, d_scalar, n, d_part);
      finish<<<1, kBlock>>>(d_part, G, 0.0f, Sum(), d_scalar + 1);
      normalize_kernel<<<G, kBlock>>>(d_p, d_scalar + 1, n, d_total, d_x, d_y);
      scan_totals<<<1, kBlock>>>(d_total, G, d_offset, d_x, d_y, d_est + 2 * k);
      add_offsets<<<G, kBlock>>>(d_p, d_offset, n);
      resample_kernel<<<G, kBlock>>>(d_p, u1[k], n);
      reset_kernel<<<G, kBlock>>>(d_p, n);
    }
  };
  const double ms = bench::medianMs([&] { run(frames); }, 5);  // each repetition starts afresh
  std::vector<float> track(2 * (frames + 1)), est(2 * (frames + 1));
  CUDA_CHECK(cudaMemcpy(track.data(), d_est, track.size() * sizeof(float), cudaMemcpyDeviceToHost));
  run(checkFrames);  // a short run for the bitwise comparison with the CPU reference
  CUDA_CHECK(cudaGetLastError());
  std::vector<ParticleTile> dev(tiles);
  std::vector<HostParticle> got(n);
  CUDA_CHECK(cudaMemcpy(dev.data(), d_p, tiles * sizeof(ParticleTile), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const ParticleTile& t = dev[i >> kTileShift];
    const int l = i & (kTile - 1);
    got[i] = {t.x[l], t.y[l], t.xj[l], t.yj[l], t.weight[l], t.likelihood[l], t.cdf[l], t.u[l], t.index[l], t.seed[l]};
  }
  CUDA_CHECK(cudaMemcpy(est.data(), d_est, est.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const int rc = checkAndReport(kVariant, v, n, ms, track, got, est, checkFrames, u1);
  for (void* a : {(void*)d_p, (void*)d_video, (void*)d_part, (void*)d_total, (void*)d_x, (void*)d_y, (void*)d_offset,
                  (void*)d_scalar, (void*)d_est})
    CUDA_CHECK(cudaFree(a));
  return rc;
}
