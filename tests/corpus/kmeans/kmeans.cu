// The k-means loop on the GPU; the points stay in managed memory, the centroids on the device.
#include <cstdio>
#include <cstdlib>

#include "kmeans_kernels.cuh"

#define CHECK(call)                                                                                               \
  do {                                                                                                            \
    const cudaError_t status = (call);                                                                            \
    if (status != cudaSuccess) {                                                                                  \
      fprintf(stderr, "kmeans: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(status)); \
      exit(EXIT_FAILURE);                                                                                         \
    }                                                                                                             \
  } while (0)

int kmeansGpu(Point* points, int n, Centroid* centroids, int k, int iterations) {
  constexpr int kUpdateBlock = 256;
  Centroid* d_centroids;
  int* d_changed;
  CHECK(cudaMalloc(&d_centroids, k * sizeof(Centroid)));
  CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CHECK(cudaMemcpy(d_centroids, centroids, k * sizeof(Centroid), cudaMemcpyHostToDevice));
  int changed = 0;
  for (int it = 0; it < iterations; ++it) {
    CHECK(cudaMemset(d_changed, 0, sizeof(int)));
    assignPoints<<<(n + 255) / 256, 256>>>(points, n, d_centroids, k, d_changed);
    updateCentroids<kUpdateBlock><<<k, kUpdateBlock>>>(points, n, d_centroids);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
  }
  CHECK(cudaMemcpy(centroids, d_centroids, k * sizeof(Centroid), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_centroids));
  CHECK(cudaFree(d_changed));
  return changed;
}
