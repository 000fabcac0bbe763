// A triangle's vertex indices are called `v`, as meshes often name them: the reference proxy's
// conversions must not hide that member behind their own local.
struct Triangle {
  int v[3];
  int material;
};

__device__ void flip(Triangle& t) {
  int first = t.v[0];
  t.v[0] = t.v[2];
  t.v[2] = first;
}

__global__ void flipAll(Triangle* tris, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flip(tris[i]);
}

int main() {
  Triangle* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(Triangle));
  flipAll<<<1, 64>>>(d, 64);
  cudaFree(d);
  return 0;
}
