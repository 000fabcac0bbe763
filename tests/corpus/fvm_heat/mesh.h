// An unstructured triangle mesh for cell-centred finite volumes.
#pragma once
#include <vector_types.h>
#include <vector>

// Boundary faces have no right cell: `right` holds one of these instead.
enum BoundaryKind { INSULATED = -1, HOT_WALL = -2, COLD_WALL = -3 };

struct Face {
  int left, right;  // cells on each side; the normal points from left to right
  float area;       // edge length (a face is an edge in 2D)
  float2 normal;    // unit normal
};

struct Cell {
  float T;       // temperature
  float volume;  // triangle area
  float k;       // conductivity
  float2 centroid;
};

struct Mesh {
  std::vector<Cell> cells;
  std::vector<Face> faces;
  std::vector<int> cellFaceStart, cellFaces;  // each cell's faces, in compressed rows
};

// The unit square cut into nx * ny squares, each split into two triangles; two materials, a hot disc.
Mesh buildMesh(int nx, int ny);
