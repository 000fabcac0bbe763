// One split-step: a three-point kinetic stencil on psi, then the potential's phase, per point.
#include "wave.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void kinetic(const Complex* psi, Complex* out, int n, double c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int l = (i + n - 1) % n, r = (i + 1) % n;
  out[i].re = psi[i].re + c * (psi[l].im + psi[r].im - 2 * psi[i].im);
  out[i].im = psi[i].im - c * (psi[l].re + psi[r].re - 2 * psi[i].re);
}

__global__ void potential(Complex* psi, const Potential* pot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Complex turn = {cos((double)pot[i].phase), sin((double)pot[i].phase)};
  psi[i] = mul(psi[i], turn);
}

int main() {
  const int n = 1 << 16;
  std::vector<Complex> host(n);
  std::vector<Potential> pot(n);
  for (int i = 0; i < n; ++i) {
    host[i] = {std::exp(-0.001 * (i - n / 2) * (i - n / 2)), 0.0};
    pot[i] = {0.5f * i / n, 0.01f * i / n};
  }
  Complex *d_psi, *d_tmp;
  Potential* d_pot;
  cudaMalloc(&d_psi, n * sizeof(Complex));
  cudaMalloc(&d_tmp, n * sizeof(Complex));
  cudaMalloc(&d_pot, n * sizeof(Potential));
  cudaMemcpy(d_psi, host.data(), n * sizeof(Complex), cudaMemcpyHostToDevice);
  cudaMemcpy(d_pot, pot.data(), n * sizeof(Potential), cudaMemcpyHostToDevice);
  for (int step = 0; step < 100; ++step) {
    kinetic<<<n / 256, 256>>>(d_psi, d_tmp, n, 0.1);
    potential<<<n / 256, 256>>>(d_tmp, d_pot, n);
    std::swap(d_psi, d_tmp);
  }
  cudaMemcpy(host.data(), d_psi, n * sizeof(Complex), cudaMemcpyDeviceToHost);
  const Complex centre = host[n / 2];
  auto closeToCentre = [centre](const Complex& c) { return std::abs(c.re - centre.re) < 1e-3; };
  Complex* unused = static_cast<Complex*>(nullptr);
  double norm = 0;
  int near = 0;
  for (const Complex& c : host) {
    norm += c.re * c.re + c.im * c.im;
    near += closeToCentre(c) && &c != unused;
  }
  std::printf("norm %.6f, %d values near the centre's\n", norm, near);
  cudaFree(d_psi);
  cudaFree(d_tmp);
  cudaFree(d_pot);
  return 0;
}
