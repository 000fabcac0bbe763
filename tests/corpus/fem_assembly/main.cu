// Explicit heat conduction with linear triangles: the stiffness matrix is never assembled, K u is
// applied element by element each step. Checked against the same steps on the CPU.
// usage: fem_assembly [cells per side] [steps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fem_kernels.cuh"
#include "mesh.h"

#define CUDA_CALL(x)                                                                   \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

constexpr int kThreads = 256;
const float kConductivity[kMaterials] = {1.0f, 5.0f};

template <typename T>
T* toDevice(const std::vector<T>& host) {
  T* device = nullptr;
  CUDA_CALL(cudaMalloc(&device, host.size() * sizeof(T)));
  CUDA_CALL(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

int blocksFor(int n) { return (n + kThreads - 1) / kThreads; }

// CPU: the same element loop in the same color order, the same explicit update.
void hostStiffness(const Mesh& mesh, const std::vector<ElemGeom>& geoms, const std::vector<float>& u,
                   std::vector<float>& ku) {
  std::fill(ku.begin(), ku.end(), 0.0f);
  for (size_t e = 0; e < mesh.elements.size(); ++e) {
    const Element& el = mesh.elements[e];
    const float uLocal[3] = {u[el.node[0]], u[el.node[1]], u[el.node[2]]};
    for (int a = 0; a < 3; ++a) ku[el.node[a]] += stiffnessRow<float>(geoms[e], kConductivity[el.material], a, uLocal);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::atoi(argv[1]) : 512;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  if (side < 2 || steps < 1) {
    std::fprintf(stderr, "usage: %s [cells per side >= 2] [steps >= 1]\n", argv[0]);
    return 2;
  }
  const Mesh mesh = buildMesh(side);
  const int nodeCount = static_cast<int>(mesh.nodes.size());
  const int elementCount = static_cast<int>(mesh.elements.size());
  const float maxConductivity = *std::max_element(kConductivity, kConductivity + kMaterials);
  const float dt = 0.1f / (static_cast<float>(side) * side * maxConductivity);
  CUDA_CALL(cudaMemcpyToSymbol(c_conductivity, kConductivity, sizeof(kConductivity)));

  Node* nodes = toDevice(mesh.nodes);
  Element* elements = toDevice(mesh.elements);
  int* nodeElemStart = toDevice(mesh.nodeElemStart);
  int* nodeElemList = toDevice(mesh.nodeElemList);
  unsigned char* fixed = toDevice(mesh.fixed);
  ElemGeom* geoms;
  float *mass, *u, *ku, *kuGather;
  CUDA_CALL(cudaMalloc(&geoms, elementCount * sizeof(ElemGeom)));
  CUDA_CALL(cudaMalloc(&mass, nodeCount * sizeof(float)));
  CUDA_CALL(cudaMalloc(&u, nodeCount * sizeof(float)));
  CUDA_CALL(cudaMalloc(&ku, nodeCount * sizeof(float)));
  CUDA_CALL(cudaMalloc(&kuGather, nodeCount * sizeof(float)));
  CUDA_CALL(cudaMemset(u, 0, nodeCount * sizeof(float)));

  cudaEvent_t begin, end;
  CUDA_CALL(cudaEventCreate(&begin));
  CUDA_CALL(cudaEventCreate(&end));
  CUDA_CALL(cudaEventRecord(begin));
  computeGeometry<<<blocksFor(elementCount), kThreads>>>(elements, nodes, geoms, elementCount);
  lumpedMass<<<blocksFor(nodeCount), kThreads>>>(nodeElemStart, nodeElemList, geoms, nodeCount, mass);
  for (int step = 0; step < steps; ++step) {
    CUDA_CALL(cudaMemsetAsync(ku, 0, nodeCount * sizeof(float)));
    for (int color = 0; color < kColors; ++color) {
      int first = mesh.colorStart[color], last = mesh.colorStart[color + 1];
      applyStiffnessColor<<<blocksFor(last - first), kThreads>>>(elements, geoms, first, last, u, ku);
    }
    explicitStep<<<blocksFor(nodeCount), kThreads>>>(nodes, mass, ku, fixed, nodeCount, dt, u);
  }
  // K u of the final state both ways, to compare the scatter with the gather.
  CUDA_CALL(cudaMemsetAsync(ku, 0, nodeCount * sizeof(float)));
  for (int color = 0; color < kColors; ++color)
    applyStiffnessColor<<<blocksFor(mesh.colorStart[color + 1] - mesh.colorStart[color]), kThreads>>>(
        elements, geoms, mesh.colorStart[color], mesh.colorStart[color + 1], u, ku);
  applyStiffnessGather<<<blocksFor(nodeCount), kThreads>>>(nodeElemStart, nodeElemList, elements, geoms, u, nodeCount,
                                                           kuGather);
  CUDA_CALL(cudaGetLastError());
  CUDA_CALL(cudaEventRecord(end));
  std::vector<float> gpuU(nodeCount), gpuKu(nodeCount), gpuKuGather(nodeCount);
  CUDA_CALL(cudaMemcpy(gpuU.data(), u, nodeCount * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CALL(cudaMemcpy(gpuKu.data(), ku, nodeCount * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CALL(cudaMemcpy(gpuKuGather.data(), kuGather, nodeCount * sizeof(float), cudaMemcpyDeviceToHost));
  float ms = 0.0f;
  CUDA_CALL(cudaEventElapsedTime(&ms, begin, end));

  std::vector<ElemGeom> geomsRef(elementCount);
  for (int e = 0; e < elementCount; ++e) {
    const Element& el = mesh.elements[e];
    geomsRef[e] = elementGeometry(mesh.nodes[el.node[0]], mesh.nodes[el.node[1]], mesh.nodes[el.node[2]]);
  }
  std::vector<float> massRef(nodeCount, 0.0f), uRef(nodeCount, 0.0f), kuRef(nodeCount);
  for (int n = 0; n < nodeCount; ++n)
    for (int k = mesh.nodeElemStart[n]; k < mesh.nodeElemStart[n + 1]; ++k)
      massRef[n] += geomsRef[mesh.nodeElemList[k] / 3].area / 3.0f;
  for (int step = 0; step < steps; ++step) {
    hostStiffness(mesh, geomsRef, uRef, kuRef);
    for (int n = 0; n < nodeCount; ++n)
      if (!mesh.fixed[n]) uRef[n] += dt * (mesh.nodes[n].load - kuRef[n] / massRef[n]);
  }
  hostStiffness(mesh, geomsRef, uRef, kuRef);

  double maxU = 0.0, uErr = 0.0, kuErr = 0.0, gatherErr = 0.0, sumU = 0.0, kuScale = 0.0;
  for (int n = 0; n < nodeCount; ++n) {
    maxU = std::max(maxU, static_cast<double>(std::fabs(uRef[n])));
    kuScale = std::max(kuScale, static_cast<double>(std::fabs(kuRef[n])));
    sumU += gpuU[n];
  }
  for (int n = 0; n < nodeCount; ++n) {
    uErr = std::max(uErr, std::fabs(gpuU[n] - uRef[n]) / maxU);
    kuErr = std::max(kuErr, std::fabs(gpuKu[n] - kuRef[n]) / kuScale);
    gatherErr = std::max(gatherErr, std::fabs(gpuKuGather[n] - gpuKu[n]) / kuScale);
  }
  std::printf("%d nodes, %d elements in %d colors, %d steps, GPU %.3f ms\n", nodeCount, elementCount, kColors, steps,
              ms);
  std::printf("max temperature %.6e, mean %.6e\n", maxU, sumU / nodeCount);
  std::printf("errors relative to the largest value: u %.2e, K u %.2e, gather vs scatter %.2e\n", uErr, kuErr,
              gatherErr);
  const double tol = 1e-4, kuTol = 1e-3;  // K u sums terms that cancel: float keeps fewer of its digits
  bool passed = uErr < tol && kuErr < kuTol && gatherErr < tol;
  std::printf("%s (u and gather vs scatter within %.0e, K u within %.0e of the largest value)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED", tol, kuTol);

  cudaFree(kuGather);
  cudaFree(ku);
  cudaFree(u);
  cudaFree(mass);
  cudaFree(geoms);
  cudaFree(fixed);
  cudaFree(nodeElemList);
  cudaFree(nodeElemStart);
  cudaFree(elements);
  cudaFree(nodes);
  return passed ? 0 : 1;
}
