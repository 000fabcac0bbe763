// An array field some use takes as a whole stays per element; the others are still split.
struct Elem {
  float normal[4][3];
  int neighbor[4];
  int tag[2];
  float w;
};

__device__ float dot(const float* n, float x) { return n[0] * x + n[1] + n[2]; }

__global__ void relax(Elem* e, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = dot(e[i].normal[1], e[i].w);
  s += e[i].neighbor[2] * e[i].normal[3][0];
  int* t = &e[i].tag[0];
  t[1] = int(s) + e[i].tag[1];
  e[i].w = s + sizeof(e[i].neighbor[0]);
}

int main() {
  Elem* d;
  cudaMalloc(&d, 64 * sizeof(Elem));
  relax<<<1, 64>>>(d, 64);
  cudaFree(d);
  return 0;
}
