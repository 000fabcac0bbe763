// Wave functions on a periodic 1-D grid: complex amplitudes, and a per-point potential with the
// phase it adds each step.
#pragma once

struct Complex {
  double re, im;
};

__host__ __device__ inline Complex mul(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

struct Potential {
  float v;      // the potential's value at the point
  float phase;  // the phase it adds per step
};
