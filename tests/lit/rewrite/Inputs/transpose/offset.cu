// Each cell's four neighbour links, row-major; one cell's links are handed on as a pointer.
struct Link {
  int cell;
  float weight;
};

constexpr int kLinks = 4;

__device__ float gather(const Link* links, const float* t) {
  float sum = 0.0f;
  for (int j = 0; j < kLinks; ++j) sum += links[j].weight * t[links[j].cell];
  return sum;
}

__global__ void relax(const Link* links, const float* t, float* out, int cells) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cells) out[c] = gather(links + c * kLinks, t);
}

int main() {
  const int cells = 64;
  Link* links;
  float *t, *out;
  cudaMalloc(&links, cells * kLinks * sizeof(Link));
  cudaMalloc(&t, cells * sizeof(float));
  cudaMalloc(&out, cells * sizeof(float));
  cudaMemset(t, 0, cells * sizeof(float));
  relax<<<1, cells>>>(links, t, out, cells);
  cudaFree(links);
  return 0;
}
