// Batched radix-2 Stockham FFTs of power-of-two length on the GPU (no bit reversal: each pass reads
// x[t] and x[t + n/2] and writes the butterfly's two outputs to their sorted places).
#pragma once
#include "complex.h"

class BatchedFft {
 public:
  BatchedFft(int length, int batch);
  ~BatchedFft();
  BatchedFft(const BatchedFft&) = delete;
  BatchedFft& operator=(const BatchedFft&) = delete;

  // In place on `batch` consecutive signals of `length` values in device memory; the inverse is unscaled.
  void forward(Complex* data) { run(data, false); }
  void inverse(Complex* data) { run(data, true); }
  int length() const { return length_; }

 private:
  void run(Complex* data, bool inverse);

  int length_;
  int batch_;
  Complex* twiddles_ = nullptr;  // exp(-2 pi i k / length), k < length / 2
  Complex* scratch_ = nullptr;
};

// Band statistics of one filtered signal.
struct BandStats {
  float energy;  // sum of |y|^2 over the signal
  float peak;    // largest |y|
};

// Weights the spectra with a Gaussian band-pass of centre and width (in frequency bins) and 1/length.
void bandPass(const Complex* spectra, Complex* out, int length, int batch, float centre, float width);
// One BandStats per signal.
void bandStats(const Complex* signals, int length, int batch, BandStats* stats);
