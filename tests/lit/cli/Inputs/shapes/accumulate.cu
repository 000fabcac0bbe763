// Pair forces accumulated into each particle's own record inside the neighbour loop: nvcc keeps
// f[i] in registers across the loop (the fields of one object cannot alias each other, and the
// positions are read through restrict pointers), so the loop loads and stores none of it.
struct Force {
  float v, x, y, z;
};

__global__ void pairForces(Force* f, const float4* __restrict__ pos, const int* __restrict__ neighbours, int n,
                           int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 pi = pos[i];
  for (int j = 0; j < k; ++j) {
    const float4 pj = pos[neighbours[i * k + j]];
    const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    const float inv = 1.0f / (dx * dx + dy * dy + dz * dz + 1e-6f);
    f[i].v += inv;
    f[i].x += dx * inv;
    f[i].y += dy * inv;
    f[i].z += dz * inv;
  }
}
