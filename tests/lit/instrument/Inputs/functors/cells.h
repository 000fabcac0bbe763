// Cells of a thermal grid and the predicates and rules that kernels apply to them.
#pragma once

struct Cell {
  float temperature;
  float conductivity;
  int material;
};

// A predicate on a cell, defined in the class.
struct Hot {
  float threshold;
  __host__ __device__ bool operator()(const Cell& c) const { return c.temperature > threshold; }
};

// A relaxation rule, declared here and defined out of the class (cells.cu).
struct Relax {
  float rate;
  __device__ float operator()(const Cell& self, const Cell& neighbour) const;
};

// A rule that takes no argument: the ambient temperature it returns depends on its state only.
struct Ambient {
  const Cell* reference;
  __device__ float operator()() const { return reference->temperature; }
};

template <class Predicate>
__device__ int countIf(const Cell* cells, int n, Predicate predicate) {
  int count = 0;
  for (int i = 0; i < n; ++i)
    if (predicate(cells[i])) ++count;
  return count;
}

// The mean of a quantity over a row, the quantity a functor or a device function's address.
template <class Quantity>
__device__ float rowMean(const Cell* cells, int width, Quantity quantity) {
  float sum = 0.0f;
  for (int i = 0; i < width; ++i) sum += quantity(cells[i]);
  return sum / width;
}

struct Heat {
  __device__ float operator()(const Cell& c) const { return c.temperature * c.conductivity; }
};

__device__ inline float conductivityOf(const Cell& c) { return c.conductivity; }
