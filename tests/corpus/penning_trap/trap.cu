// IonCloud: device buffers and launches.
#include "check.h"
#include "trap.h"
#include "trap_kernels.cuh"

IonCloud::IonCloud(int n) : n_(n), blocks_((n + kThreads - 1) / kThreads), hostPartial_(blocks_) {
  CHECK(cudaMalloc(&ions_, sizeof(Ion) * n_));
  CHECK(cudaMalloc(&momenta_, sizeof(Momentum) * n_));
  CHECK(cudaMalloc(&partial_, sizeof(Diagnostics) * blocks_));
  seedCloud<<<blocks_, kThreads>>>(ions_, momenta_, n_);
  CHECK(cudaGetLastError());
}

IonCloud::~IonCloud() {
  cudaFree(partial_);
  cudaFree(momenta_);
  cudaFree(ions_);
}

void IonCloud::step(const TrapField& field, float t, float dt) {
  push<<<blocks_, kThreads>>>(ions_, momenta_, n_, field, t, dt);
  CHECK(cudaGetLastError());
}

CloudStats IonCloud::stats(float wallRadius) {
  diagnose<kThreads><<<blocks_, kThreads>>>(ions_, momenta_, n_, wallRadius * wallRadius, partial_);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hostPartial_.data(), partial_, sizeof(Diagnostics) * blocks_, cudaMemcpyDeviceToHost));
  CloudStats s = {0, 0, 0, 0, 0};
  for (const Diagnostics& d : hostPartial_) {
    s.kinetic += d.kinetic;
    s.radial += d.radial;
    s.axial += d.axial;
    s.escaped += d.escaped;
    s.weight += d.weight;
  }
  s.kinetic /= s.weight;
  s.radial /= s.weight;
  s.axial /= s.weight;
  s.escaped /= s.weight;
  return s;
}

void IonCloud::download(std::vector<Ion>& ions, std::vector<Momentum>& momenta) const {
  ions.resize(n_);
  momenta.resize(n_);
  CHECK(cudaMemcpy(ions.data(), ions_, sizeof(Ion) * n_, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(momenta.data(), momenta_, sizeof(Momentum) * n_, cudaMemcpyDeviceToHost));
}
