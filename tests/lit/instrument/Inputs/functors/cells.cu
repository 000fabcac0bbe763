#include "cells.h"

__device__ float Relax::operator()(const Cell& self, const Cell& neighbour) const {
  return rate * self.conductivity * (neighbour.temperature - self.temperature);
}

template <class Rule>
__global__ void relax(const Cell* in, Cell* out, int n, Rule rule, Ambient ambient) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Cell& left = in[i > 0 ? i - 1 : i];
  const Cell& right = in[i + 1 < n ? i + 1 : i];
  out[i] = in[i];
  out[i].temperature += rule(in[i], left) + rule(in[i], right) + 0.01f * (ambient() - in[i].temperature);
}

// One count per block: the hot cells among the block's rows.
__global__ void countHot(const Cell* cells, int rows, int width, Hot hot, int* counts) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) counts[row] = countIf(cells + row * width, width, hot);
}

// The same count through a lambda: countIf's call of its predicate is one text for both.
__global__ void countMaterial(const Cell* cells, int rows, int width, int material, int* counts) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    counts[row] = countIf(cells + row * width, width, [=](const Cell& c) { return c.material == material; });
}

__global__ void rowMeans(const Cell* cells, int rows, int width, float* heat, float* conductivity) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  heat[row] = rowMean(cells + row * width, width, Heat{});
  conductivity[row] = rowMean(cells + row * width, width, &conductivityOf);
}

void step(const Cell* in, Cell* out, int n, float rate, const Cell* reference, cudaStream_t stream) {
  relax<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n, Relax{rate}, Ambient{reference});
}

void census(const Cell* cells, int rows, int width, float threshold, int* hot, int* steel, cudaStream_t stream) {
  countHot<<<(rows + 127) / 128, 128, 0, stream>>>(cells, rows, width, Hot{threshold}, hot);
  countMaterial<<<(rows + 127) / 128, 128, 0, stream>>>(cells, rows, width, 2, steel);
}

void means(const Cell* cells, int rows, int width, float* heat, float* conductivity, cudaStream_t stream) {
  rowMeans<<<(rows + 127) / 128, 128, 0, stream>>>(cells, rows, width, heat, conductivity);
}
