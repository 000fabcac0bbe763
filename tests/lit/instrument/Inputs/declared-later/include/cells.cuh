// The cell type and the device helpers the kernels share; the helpers are defined in cells.cu.
#pragma once

struct Cell {
  float density;
  float pressure;
};

__device__ float soundSpeed(const Cell& c);
