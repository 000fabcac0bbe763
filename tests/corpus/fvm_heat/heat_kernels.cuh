// Explicit finite-volume heat conduction: one flux per face, then each cell sums its faces' fluxes.
#pragma once
#include "mesh.h"

__constant__ float c_wallTemperature[2];  // the hot wall (x = 0) and the cold wall (x = 1)

template <typename Real>
__device__ inline Real harmonicMean(Real a, Real b) {
  return Real(2) * a * b / (a + b);
}

// Heat flowing across each face from its left cell to its right cell (or the wall).
__global__ void faceFluxes(const Face* faces, int faceCount, const Cell* cells, float* flux) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faceCount) return;
  const Face& face = faces[f];
  const Cell& left = cells[face.left];
  float q = 0.0f;
  if (face.right >= 0) {
    const Cell& right = cells[face.right];
    const float d = fabsf((right.centroid.x - left.centroid.x) * face.normal.x +
                          (right.centroid.y - left.centroid.y) * face.normal.y);
    q = harmonicMean(left.k, right.k) * (left.T - right.T) / d * face.area;
  } else if (face.right != INSULATED) {
    const bool hot = face.right == HOT_WALL;
    const float d = hot ? left.centroid.x : 1.0f - left.centroid.x;
    q = left.k * (left.T - c_wallTemperature[hot ? 0 : 1]) / d * face.area;
  }
  flux[f] = q;
}

__global__ void updateTemperature(Cell* cells, int cellCount, const Face* faces, const int* cellFaceStart,
                                  const int* cellFaces, const float* flux, float dt) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cellCount) return;
  float net = 0.0f;
  for (int e = cellFaceStart[c]; e < cellFaceStart[c + 1]; ++e) {
    const int f = cellFaces[e];
    net += faces[f].left == c ? -flux[f] : flux[f];
  }
  cells[c].T += dt * net / cells[c].volume;
}

// Heat content of each cell, summed on the host.
__global__ void cellHeat(const Cell* cells, int cellCount, double* heat) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cellCount) heat[c] = double(cells[c].T) * cells[c].volume;
}
