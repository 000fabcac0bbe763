// Linear triangles on a perturbed structured mesh of the unit square, and the per-element algebra
// used by both the kernels and the CPU reference.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#ifdef __CUDACC__
#define FEM_HOST_DEVICE __host__ __device__
#else
#define FEM_HOST_DEVICE
#endif

struct Node {
  float x, y;
  float load;  // heat source density at the node
};

struct Element {
  int node[3];  // counter-clockwise
  int material;
};

// Gradients of the three P1 basis functions (component a of gradX is d(phi_a)/dx) and the area.
struct ElemGeom {
  float3 gradX;
  float3 gradY;
  float area;
};

constexpr int kColors = 8;
constexpr int kMaterials = 2;

struct Mesh {
  int side = 0;  // cells per side
  std::vector<Node> nodes;
  std::vector<Element> elements;                 // grouped by color: no two elements of a color share a node
  std::vector<int> colorStart;                   // kColors + 1 offsets into elements
  std::vector<int> nodeElemStart, nodeElemList;  // per node, its elements as 3 * element + local index
  std::vector<unsigned char> fixed;              // boundary nodes (u = 0)
};

Mesh buildMesh(int side);

FEM_HOST_DEVICE inline float component(const float3& v, int a) { return a == 0 ? v.x : (a == 1 ? v.y : v.z); }

FEM_HOST_DEVICE inline ElemGeom elementGeometry(const Node& p0, const Node& p1, const Node& p2) {
  float det = (p1.x - p0.x) * (p2.y - p0.y) - (p2.x - p0.x) * (p1.y - p0.y);
  float inv = 1.0f / det;
  ElemGeom g;
  g.gradX = make_float3((p1.y - p2.y) * inv, (p2.y - p0.y) * inv, (p0.y - p1.y) * inv);
  g.gradY = make_float3((p2.x - p1.x) * inv, (p0.x - p2.x) * inv, (p1.x - p0.x) * inv);
  g.area = 0.5f * det;
  return g;
}

// Row a of the element stiffness matrix, k * area * grad(phi_a) . grad(phi_b), applied to uLocal.
template <typename Real>
FEM_HOST_DEVICE Real stiffnessRow(const ElemGeom& g, Real conductivity, int a, const Real uLocal[3]) {
  Real gxa = component(g.gradX, a), gya = component(g.gradY, a);
  Real sum = 0;
  for (int b = 0; b < 3; ++b) sum += (gxa * component(g.gradX, b) + gya * component(g.gradY, b)) * uLocal[b];
  return conductivity * g.area * sum;
}
