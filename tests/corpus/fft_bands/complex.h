// Single-precision complex numbers for host and device code.
#pragma once
#include <cuda_runtime.h>

struct Complex {
  float re, im;
};

__host__ __device__ inline Complex operator+(Complex a, Complex b) { return Complex{a.re + b.re, a.im + b.im}; }
__host__ __device__ inline Complex operator-(Complex a, Complex b) { return Complex{a.re - b.re, a.im - b.im}; }
__host__ __device__ inline Complex operator*(Complex a, Complex b) {
  return Complex{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__host__ __device__ inline Complex operator*(float s, Complex a) { return Complex{s * a.re, s * a.im}; }
__host__ __device__ inline Complex conj(Complex a) { return Complex{a.re, -a.im}; }
__host__ __device__ inline float norm2(Complex a) { return a.re * a.re + a.im * a.im; }
