// A filter bank by FFT: a batch of noisy complex baseband signals is transformed once, then for each
// band the spectra are weighted by a Gaussian band-pass and transformed back, and each filtered
// signal's energy and peak recorded. Sampled signals and bands are checked against a double FFT.
// usage: fft_bands [length = 4096] [signals = 2048] [bands = 256]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
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

using Cd = std::complex<double>;

struct Lcg {
  unsigned long long state;
  double uniform() {  // [0, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / 9007199254740992.0;
  }
};

// Three tones of random frequency, amplitude and phase, plus uniform noise. Each tone is a phasor
// turned by a fixed step per sample.
void makeSignals(std::vector<Complex>& x, int length, int signals) {
  Lcg rng{4242};
  for (int s = 0; s < signals; ++s) {
    Cd tone[3], step[3];
    for (int k = 0; k < 3; ++k) {
      const double freq = std::floor((rng.uniform() - 0.5) * length * 0.9);
      const double amp = 0.3 + rng.uniform();
      tone[k] = std::polar(amp, 2 * M_PI * rng.uniform());
      step[k] = std::polar(1.0, 2 * M_PI * freq / length);
    }
    for (int t = 0; t < length; ++t) {
      Cd v(0.2 * (rng.uniform() - 0.5), 0.2 * (rng.uniform() - 0.5));
      for (int k = 0; k < 3; ++k) {
        v += tone[k];
        tone[k] *= step[k];
      }
      x[size_t(s) * length + t] = Complex{float(v.real()), float(v.imag())};
    }
  }
}

void referenceFft(std::vector<Cd>& a, bool inverse) {
  const int n = int(a.size());
  if (n == 1) return;
  std::vector<Cd> even(n / 2), odd(n / 2);
  for (int i = 0; i < n / 2; ++i) {
    even[i] = a[2 * i];
    odd[i] = a[2 * i + 1];
  }
  referenceFft(even, inverse);
  referenceFft(odd, inverse);
  for (int k = 0; k < n / 2; ++k) {
    const Cd w = std::polar(1.0, (inverse ? 2 : -2) * M_PI * k / n) * odd[k];
    a[k] = even[k] + w;
    a[k + n / 2] = even[k] - w;
  }
}

float bandCentre(int band, int bands, int length) { return (band + 0.5f) * (length / 2) / bands; }
float bandWidth(int bands, int length) { return float(length / 2) / bands; }

}  // namespace

int main(int argc, char** argv) {
  const int length = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int signals = argc > 2 ? std::atoi(argv[2]) : 2048;
  const int bands = argc > 3 ? std::atoi(argv[3]) : 256;
  if (length < 16 || (length & (length - 1)) != 0 || signals < 3 || signals > 65535 || bands < 3) {
    std::fprintf(stderr, "usage: %s [length: a power of two >= 16] [signals 3..65535] [bands >= 3]\n", argv[0]);
    return 2;
  }
  const size_t total = size_t(length) * signals;
  std::vector<Complex> x(total);
  makeSignals(x, length, signals);

  Complex *d_spectra = nullptr, *d_filtered = nullptr;
  BandStats* d_stats = nullptr;
  CHECK(cudaMalloc(&d_spectra, sizeof(Complex) * total));
  CHECK(cudaMalloc(&d_filtered, sizeof(Complex) * total));
  CHECK(cudaMalloc(&d_stats, sizeof(BandStats) * size_t(bands) * signals));
  CHECK(cudaMemcpy(d_spectra, x.data(), sizeof(Complex) * total, cudaMemcpyHostToDevice));

  BatchedFft fft(length, signals);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  fft.forward(d_spectra);
  for (int band = 0; band < bands; ++band) {
    bandPass(d_spectra, d_filtered, length, signals, bandCentre(band, bands, length), bandWidth(bands, length));
    fft.inverse(d_filtered);
    bandStats(d_filtered, length, signals, d_stats + size_t(band) * signals);
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<BandStats> stats(size_t(bands) * signals);
  std::vector<Complex> spectrum0(length);
  CHECK(cudaMemcpy(stats.data(), d_stats, sizeof(BandStats) * stats.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(spectrum0.data(), d_spectra, sizeof(Complex) * length, cudaMemcpyDeviceToHost));

  // Three signals in three bands through a double FFT; signal 0's spectrum too.
  int wrong = 0;
  double spectrumErr = 0;
  for (int s : {0, signals / 3, signals - 1}) {
    std::vector<Cd> spectrum(length);
    for (int t = 0; t < length; ++t) spectrum[t] = Cd(x[size_t(s) * length + t].re, x[size_t(s) * length + t].im);
    referenceFft(spectrum, false);
    if (s == 0) {
      double peak = 0;
      for (int k = 0; k < length; ++k) {
        peak = std::max(peak, std::abs(spectrum[k]));
        spectrumErr = std::max(spectrumErr, std::abs(spectrum[k] - Cd(spectrum0[k].re, spectrum0[k].im)));
      }
      spectrumErr /= peak;
    }
    for (int band : {0, bands / 2, bands - 1}) {
      std::vector<Cd> y(length);
      for (int k = 0; k < length; ++k) {
        const double f = k <= length / 2 ? k : length - k;
        const double d = (f - bandCentre(band, bands, length)) / bandWidth(bands, length);
        y[k] = spectrum[k] * (std::exp(-d * d) / length);
      }
      referenceFft(y, true);
      double energy = 0, peak = 0;
      for (const Cd& v : y) {
        energy += std::norm(v);
        peak = std::max(peak, std::abs(v));
      }
      const BandStats& g = stats[size_t(band) * signals + s];
      if (!(std::fabs(g.energy - energy) <= 1e-4 * energy) || !(std::fabs(g.peak - peak) <= 1e-4 * peak)) {
        std::printf("signal %d band %d: energy %.6e (cpu %.6e) peak %.6e (cpu %.6e)\n", s, band, g.energy, energy,
                    g.peak, peak);
        ++wrong;
      }
    }
  }

  std::vector<double> bandEnergy(bands, 0.0);
  double peakSum = 0;
  for (int band = 0; band < bands; ++band)
    for (int s = 0; s < signals; ++s) {
      bandEnergy[band] += stats[size_t(band) * signals + s].energy;
      peakSum += stats[size_t(band) * signals + s].peak;
    }
  const int loudest = int(std::max_element(bandEnergy.begin(), bandEnergy.end()) - bandEnergy.begin());
  std::printf("%d signals of %d samples, %d bands\n", signals, length, bands);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("energy per signal: band 0 %.4f, band %d %.4f, band %d %.4f\n", bandEnergy[0] / signals, bands / 2,
              bandEnergy[bands / 2] / signals, bands - 1, bandEnergy[bands - 1] / signals);
  std::printf("loudest band %d (%.4f per signal), mean peak %.6f\n", loudest, bandEnergy[loudest] / signals,
              peakSum / (double(bands) * signals));
  std::printf("against a double FFT: spectrum error %.1e of its peak, %d of 9 band results differ\n", spectrumErr,
              wrong);
  const bool passed = wrong == 0 && spectrumErr < 1e-5;
  std::printf("%s (band energies and peaks within a relative 1e-4, spectrum within 1e-5 of its peak)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cudaFree(d_stats);
  cudaFree(d_filtered);
  cudaFree(d_spectra);
  return passed ? 0 : 1;
}
