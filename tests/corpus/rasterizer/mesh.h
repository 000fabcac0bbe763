// Indexed triangle meshes for the software rasterizer.
#pragma once

#include <cuda_runtime.h>

#include <vector>

struct Vertex {
  float3 pos;    // world space
  float3 color;  // linear RGB
};

struct Triangle {
  int v[3];       // indices into the vertex array
  int material;   // index into the material tints
  float3 normal;  // world-space unit normal, filled in by triangle setup
};

// Where a vertex lands on screen: pixel coordinates, depth in [0, 1], and whether it is in front
// of the near plane.
struct ScreenVertex {
  float x, y, depth;
  int visible;
};

#define MATERIAL_COUNT 4

struct Mesh {
  std::vector<Vertex> vertices;
  std::vector<Triangle> triangles;
};

// A hilly terrain of (grid x grid) vertices over [-1, 1]^2, two triangles per cell.
Mesh makeTerrain(int grid, unsigned int seed);
