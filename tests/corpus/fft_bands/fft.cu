// Kernels of the batched FFT and of the band analysis.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fft.h"

#define CHECK(call)                                                                                              \
  do {                                                                                                           \
    const cudaError_t status_ = (call);                                                                          \
    if (status_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "fft_bands: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,                    \
                   cudaGetErrorString(status_));                                                                 \
      std::exit(2);                                                                                              \
    }                                                                                                            \
  } while (0)

namespace {

constexpr int kThreads = 256;

// One pass of stride s: butterfly t of each signal (blockIdx.y) combines x[t] and x[t + n/2].
__global__ void stockhamPass(const Complex* x, Complex* y, int n, int s, const Complex* twiddles, bool inverse) {
  const int half = n / 2;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= half) return;
  const Complex* in = x + size_t(blockIdx.y) * n;
  Complex* out = y + size_t(blockIdx.y) * n;
  const Complex a = in[t];
  const Complex b = in[t + half];
  const int q = t & (s - 1);
  const Complex w = inverse ? conj(twiddles[t - q]) : twiddles[t - q];
  out[2 * t - q] = a + b;
  out[2 * t - q + s] = (a - b) * w;
}

__global__ void bandPassKernel(const Complex* spectra, Complex* out, int n, int batch, float centre, float width) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(n) * batch) return;
  const int k = int(i % n);
  const float f = float(k <= n / 2 ? k : n - k);
  const float d = (f - centre) / width;
  out[i] = (expf(-d * d) / float(n)) * spectra[i];
}

template <int BLOCK>
__global__ void bandStatsKernel(const Complex* signals, int n, BandStats* stats) {
  __shared__ float energy[BLOCK];
  __shared__ float peak[BLOCK];
  const Complex* y = signals + size_t(blockIdx.x) * n;
  float e = 0.f, p = 0.f;
  for (int t = threadIdx.x; t < n; t += BLOCK) {
    const float a = norm2(y[t]);
    e += a;
    p = fmaxf(p, a);
  }
  energy[threadIdx.x] = e;
  peak[threadIdx.x] = p;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      energy[threadIdx.x] += energy[threadIdx.x + half];
      peak[threadIdx.x] = fmaxf(peak[threadIdx.x], peak[threadIdx.x + half]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    stats[blockIdx.x].energy = energy[0];
    stats[blockIdx.x].peak = sqrtf(peak[0]);
  }
}

}  // namespace

BatchedFft::BatchedFft(int length, int batch) : length_(length), batch_(batch) {
  std::vector<Complex> twiddles(length / 2);
  for (int k = 0; k < length / 2; ++k) {
    const double angle = -2.0 * M_PI * k / length;
    twiddles[k] = Complex{float(std::cos(angle)), float(std::sin(angle))};
  }
  CHECK(cudaMalloc(&twiddles_, sizeof(Complex) * (length / 2)));
  CHECK(cudaMalloc(&scratch_, sizeof(Complex) * size_t(length) * batch));
  CHECK(cudaMemcpy(twiddles_, twiddles.data(), sizeof(Complex) * (length / 2), cudaMemcpyHostToDevice));
}

BatchedFft::~BatchedFft() {
  cudaFree(scratch_);
  cudaFree(twiddles_);
}

void BatchedFft::run(Complex* data, bool inverse) {
  const dim3 blocks((length_ / 2 + kThreads - 1) / kThreads, batch_);
  Complex *from = data, *to = scratch_;
  for (int s = 1; s < length_; s *= 2) {
    stockhamPass<<<blocks, kThreads>>>(from, to, length_, s, twiddles_, inverse);
    Complex* t = from;
    from = to;
    to = t;
  }
  CHECK(cudaGetLastError());
  if (from != data) CHECK(cudaMemcpyAsync(data, from, sizeof(Complex) * size_t(length_) * batch_, cudaMemcpyDeviceToDevice));
}

void bandPass(const Complex* spectra, Complex* out, int length, int batch, float centre, float width) {
  const size_t n = size_t(length) * batch;
  bandPassKernel<<<unsigned((n + kThreads - 1) / kThreads), kThreads>>>(spectra, out, length, batch, centre, width);
  CHECK(cudaGetLastError());
}

void bandStats(const Complex* signals, int length, int batch, BandStats* stats) {
  bandStatsKernel<kThreads><<<batch, kThreads>>>(signals, length, stats);
  CHECK(cudaGetLastError());
}
