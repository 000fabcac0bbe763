// Matrix-free application of the P1 stiffness matrix, y = K u, two ways: a scatter by element color
// (no two elements of a launch share a node, so no atomics) and a gather over each node's elements.
#pragma once
#include "mesh.h"

__constant__ float c_conductivity[kMaterials];

__global__ void computeGeometry(const Element* elements, const Node* nodes, ElemGeom* geoms, int count) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const Element& el = elements[e];
  geoms[e] = elementGeometry(nodes[el.node[0]], nodes[el.node[1]], nodes[el.node[2]]);
}

// Lumped mass: a third of the area of every element around the node.
__global__ void lumpedMass(const int* nodeElemStart, const int* nodeElemList, const ElemGeom* geoms, int nodeCount,
                           float* mass) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= nodeCount) return;
  float m = 0.0f;
  for (int k = nodeElemStart[n]; k < nodeElemStart[n + 1]; ++k) m += geoms[nodeElemList[k] / 3].area / 3.0f;
  mass[n] = m;
}

__global__ void applyStiffnessColor(const Element* elements, const ElemGeom* geoms, int first, int last, const float* u,
                                    float* ku) {
  int e = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= last) return;
  const Element el = elements[e];
  const ElemGeom* g = &geoms[e];
  const float uLocal[3] = {u[el.node[0]], u[el.node[1]], u[el.node[2]]};
  const float k = c_conductivity[el.material];
  for (int a = 0; a < 3; ++a) ku[el.node[a]] += stiffnessRow<float>(*g, k, a, uLocal);
}

__global__ void applyStiffnessGather(const int* nodeElemStart, const int* nodeElemList, const Element* elements,
                                     const ElemGeom* geoms, const float* u, int nodeCount, float* ku) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= nodeCount) return;
  float sum = 0.0f;
  for (int k = nodeElemStart[n]; k < nodeElemStart[n + 1]; ++k) {
    int e = nodeElemList[k] / 3, a = nodeElemList[k] % 3;
    const Element& el = elements[e];
    const float uLocal[3] = {u[el.node[0]], u[el.node[1]], u[el.node[2]]};
    sum += stiffnessRow<float>(geoms[e], c_conductivity[el.material], a, uLocal);
  }
  ku[n] = sum;
}

// Explicit heat step with the lumped mass: u += dt * (f - (K u) / m); boundary nodes stay at zero.
__global__ void explicitStep(const Node* nodes, const float* mass, const float* ku, const unsigned char* fixed,
                             int nodeCount, float dt, float* u) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= nodeCount || fixed[n]) return;
  u[n] += dt * (nodes[n].load - ku[n] / mass[n]);
}
