// The solver on the GPU.
#include <cstdio>
#include <cstdlib>

#include "heat.h"
#include "heat_kernels.cuh"

#define CUDA_TRY(call)                                                                       \
  do {                                                                                       \
    cudaError_t err = call;                                                                  \
    if (err != cudaSuccess) {                                                                \
      fprintf(stderr, "fvm_heat: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      exit(EXIT_FAILURE);                                                                    \
    }                                                                                        \
  } while (0)

double solveOnGpu(Mesh& mesh, float dt, int steps, float hotWall, float coldWall) {
  const int nc = int(mesh.cells.size()), nf = int(mesh.faces.size());
  const float walls[2] = {hotWall, coldWall};
  CUDA_TRY(cudaMemcpyToSymbol(c_wallTemperature, walls, sizeof(walls)));

  Cell* d_cells;
  Face* d_faces;
  int *d_start, *d_cellFaces;
  float* d_flux;
  double* d_heat;
  CUDA_TRY(cudaMalloc(&d_cells, nc * sizeof(Cell)));
  CUDA_TRY(cudaMalloc(&d_faces, nf * sizeof(Face)));
  CUDA_TRY(cudaMalloc(&d_start, (nc + 1) * sizeof(int)));
  CUDA_TRY(cudaMalloc(&d_cellFaces, mesh.cellFaces.size() * sizeof(int)));
  CUDA_TRY(cudaMalloc(&d_flux, nf * sizeof(float)));
  CUDA_TRY(cudaMalloc(&d_heat, nc * sizeof(double)));
  CUDA_TRY(cudaMemcpy(d_cells, mesh.cells.data(), nc * sizeof(Cell), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemcpy(d_faces, mesh.faces.data(), nf * sizeof(Face), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemcpy(d_start, mesh.cellFaceStart.data(), (nc + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemcpy(d_cellFaces, mesh.cellFaces.data(), mesh.cellFaces.size() * sizeof(int), cudaMemcpyHostToDevice));

  const int block = 256;
  for (int s = 0; s < steps; ++s) {
    faceFluxes<<<(nf + block - 1) / block, block>>>(d_faces, nf, d_cells, d_flux);
    updateTemperature<<<(nc + block - 1) / block, block>>>(d_cells, nc, d_faces, d_start, d_cellFaces, d_flux, dt);
  }
  cellHeat<<<(nc + block - 1) / block, block>>>(d_cells, nc, d_heat);
  CUDA_TRY(cudaGetLastError());

  std::vector<double> heat(nc);
  CUDA_TRY(cudaMemcpy(mesh.cells.data(), d_cells, nc * sizeof(Cell), cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(heat.data(), d_heat, nc * sizeof(double), cudaMemcpyDeviceToHost));
  double total = 0;
  for (double h : heat) total += h;

  cudaFree(d_cells);
  cudaFree(d_faces);
  cudaFree(d_start);
  cudaFree(d_cellFaces);
  cudaFree(d_flux);
  cudaFree(d_heat);
  return total;
}
