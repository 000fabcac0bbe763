#include "check.h"
#include "kernels.cuh"
#include "slab.h"

Slab::Slab(int first, int count, int total)
    : first_(first), count_(count), total_(total), blocks_((count + kBlock - 1) / kBlock) {
  CHECK(cudaMalloc(&bodies_, count_ * sizeof(Body)));
  CHECK(cudaMalloc(&sources_, total_ * sizeof(Source)));
  CHECK(cudaMalloc(&packed_, count_ * sizeof(Source)));
  CHECK(cudaMalloc(&partials_, 3 * blocks_ * sizeof(double)));
  seedBodies<<<blocks_, kBlock>>>(bodies_, first_, count_, total_);
  CHECK(cudaGetLastError());
}

Slab::~Slab() {
  cudaFree(bodies_);
  cudaFree(sources_);
  cudaFree(packed_);
  cudaFree(partials_);
}

void Slab::packSources(std::vector<Source>& sources) {
  pack<<<blocks_, kBlock>>>(bodies_, packed_, count_);
  sources.resize(count_);
  CHECK(cudaMemcpy(sources.data(), packed_, count_ * sizeof(Source), cudaMemcpyDeviceToHost));
}

void Slab::step(const std::vector<Source>& all, float dt) {
  CHECK(cudaMemcpy(sources_, all.data(), total_ * sizeof(Source), cudaMemcpyHostToDevice));
  accelerate<<<blocks_, kBlock>>>(bodies_, count_, sources_, total_);
  leapfrog<<<blocks_, kBlock>>>(bodies_, count_, dt);
  CHECK(cudaGetLastError());
}

Energies Slab::energies() {
  reduceEnergies<<<blocks_, kBlock>>>(bodies_, count_, partials_);
  std::vector<double> partials(3 * blocks_);
  CHECK(cudaMemcpy(partials.data(), partials_, partials.size() * sizeof(double), cudaMemcpyDeviceToHost));
  Energies e;
  for (int b = 0; b < blocks_; ++b) {
    e.kinetic += partials[3 * b];
    e.potential += partials[3 * b + 1];
  }
  return e;
}

double Slab::checksum() {
  reduceEnergies<<<blocks_, kBlock>>>(bodies_, count_, partials_);
  std::vector<double> partials(3 * blocks_);
  CHECK(cudaMemcpy(partials.data(), partials_, partials.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int b = 0; b < blocks_; ++b) sum += partials[3 * b + 2];
  return sum;
}
