// Triangles copied whole into locals; some kernels read only part of the copy.
#include <cuda_runtime.h>

struct __align__(16) Facet {
  float3 normal;
  float3 a, b, c;
};

__device__ float3 operator-(float3 p, float3 q) { return make_float3(p.x - q.x, p.y - q.y, p.z - q.z); }
__device__ float area2(const Facet& f) {
  const float3 u = f.b - f.a, v = f.c - f.a;
  return u.y * v.z - u.z * v.y;
}

// Reads the corners only: the normal's loads are dead.
__global__ void corners(const Facet* facets, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Facet f = facets[i];
  out[i] = f.a.x + f.b.y + f.c.z;
}

// Reads nothing of its copy but a: one site.
__global__ void firstCorner(const Facet* facets, float3* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Facet f = facets[i];
    out[i] = f.a;
  }
}

// The copy is passed on whole: every field.
__global__ void areas(const Facet* facets, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Facet f = facets[i];
  out[i] = area2(f) + f.normal.x;
}
