// Whole elements in device code: copies gather the fields, statements p[i] = q scatter them.
struct P { float x, y; float w[2]; int id; };

__device__ P shifted(P v, float by) {
  v.x += by;
  return v;
}

__global__ void k(P* p, P* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P q = p[i];          // gather
  auto r = (p[(i + 1) % n]);
  q.x += r.y;
  out[i] = q;          // scatter
  out[i] = p[i];
  q = p[0];
  out[i] = shifted(q, 1.0f);  // a call's result, scattered
}

int main() {
  P* d; P* e;
  cudaMalloc(&d, 64 * sizeof(P));
  cudaMalloc(&e, 64 * sizeof(P));
  k<<<1, 64>>>(d, e, 64);
  cudaFree(d);
  cudaFree(e);
}
