// Building the cloth and running it on the GPU.
#include <cstdio>
#include <cstdlib>

#include "cloth.h"
#include "cloth_kernels.cuh"

#define CUDA_OK(call)                                                                              \
  if (cudaError_t err = (call); err != cudaSuccess) {                                              \
    fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err)); \
    exit(EXIT_FAILURE);                                                                            \
  }

ClothMesh buildCloth(int width, int height, float spacing) {
  ClothMesh mesh;
  mesh.width = width;
  mesh.height = height;
  const int n = width * height;
  mesh.particles.resize(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      // A horizontal sheet; the two far corners are pinned.
      const bool pinned = y == 0 && (x == 0 || x == width - 1);
      mesh.particles[y * width + x] = Particle(make_float3(x * spacing, 1.0f, y * spacing), pinned ? 0.0f : 100.0f);
    }
  // Structural, shear and bending springs, as (dx, dy) offsets with their stiffness.
  const int offsets[6][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}, {2, 0}, {0, 2}};
  const float stiffness[6] = {400.0f, 400.0f, 100.0f, 100.0f, 20.0f, 20.0f};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int o = 0; o < 6; ++o) {
        const int x2 = x + offsets[o][0], y2 = y + offsets[o][1];
        if (x2 < 0 || x2 >= width || y2 < 0 || y2 >= height) continue;
        Spring s;
        s.a = y * width + x;
        s.b = y2 * width + x2;
        s.rest = spacing * sqrtf(float(offsets[o][0] * offsets[o][0] + offsets[o][1] * offsets[o][1]));
        s.k = stiffness[o];
        mesh.springs.push_back(s);
      }
  // Each particle's springs, in spring order.
  std::vector<int> degree(n + 1, 0);
  for (const Spring& s : mesh.springs) {
    ++degree[s.a + 1];
    ++degree[s.b + 1];
  }
  for (int i = 0; i < n; ++i) degree[i + 1] += degree[i];
  mesh.adjStart = degree;
  mesh.adjSpring.resize(2 * mesh.springs.size());
  std::vector<int> cursor(degree.begin(), degree.end() - 1);
  for (int e = 0; e < int(mesh.springs.size()); ++e) {
    mesh.adjSpring[cursor[mesh.springs[e].a]++] = e;
    mesh.adjSpring[cursor[mesh.springs[e].b]++] = e;
  }
  return mesh;
}

std::vector<Particle> simulateOnGpu(const ClothMesh& mesh, const ClothParams& params, int steps, double* energy) {
  const int n = int(mesh.particles.size()), m = int(mesh.springs.size());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  // Pinned staging copy of the particles, so the uploads and the download are asynchronous.
  Particle* staging;
  CUDA_OK(cudaMallocHost(&staging, n * sizeof(Particle)));
  std::copy(mesh.particles.begin(), mesh.particles.end(), staging);

  Particle* d_particles;
  Spring* d_springs;
  int *d_adjStart, *d_adjSpring;
  float* d_energy;
  CUDA_OK(cudaMalloc(&d_particles, n * sizeof(Particle)));
  CUDA_OK(cudaMalloc(&d_springs, m * sizeof(Spring)));
  CUDA_OK(cudaMalloc(&d_adjStart, (n + 1) * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_adjSpring, 2 * m * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_energy, m * sizeof(float)));
  CUDA_OK(cudaMemcpyAsync(d_particles, staging, n * sizeof(Particle), cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaMemcpyAsync(d_springs, mesh.springs.data(), m * sizeof(Spring), cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaMemcpyAsync(d_adjStart, mesh.adjStart.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice, stream));
  CUDA_OK(cudaMemcpyAsync(d_adjSpring, mesh.adjSpring.data(), 2 * m * sizeof(int), cudaMemcpyHostToDevice, stream));

  const int block = 256;
  const HookeModel model{0.5f};
  for (int s = 0; s < steps; ++s) {
    gatherSpringForces<<<(n + block - 1) / block, block, 0, stream>>>(d_particles, n, d_springs, d_adjStart,
                                                                      d_adjSpring, model);
    integrate<<<(n + block - 1) / block, block, 0, stream>>>(d_particles, n, params);
    collideBall<<<(n + block - 1) / block, block, 0, stream>>>(d_particles, n, params.ballCentre, params.ballRadius);
  }
  springEnergy<<<(m + block - 1) / block, block, 0, stream>>>(d_springs, m, d_particles, d_energy);
  CUDA_OK(cudaGetLastError());

  std::vector<float> springEnergies(m);
  CUDA_OK(cudaMemcpyAsync(staging, d_particles, n * sizeof(Particle), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaMemcpyAsync(springEnergies.data(), d_energy, m * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  *energy = 0;
  for (float e : springEnergies) *energy += e;
  std::vector<Particle> result(staging, staging + n);

  cudaFreeHost(staging);
  cudaFree(d_particles);
  cudaFree(d_springs);
  cudaFree(d_adjStart);
  cudaFree(d_adjSpring);
  cudaFree(d_energy);
  cudaStreamDestroy(stream);
  return result;
}
