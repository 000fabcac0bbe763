// A struct in a namespace that host code names through a using-declaration.
#include <cstdio>

namespace sim {
struct Body {
  float x, y;
  float m;
};

__global__ void drift(Body* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i].x += b[i].m * b[i].y;
}
}  // namespace sim

using sim::Body;

int main() {
  const int n = 256;
  Body* d = nullptr;
  cudaMalloc(&d, n * sizeof(Body));
  sim::drift<<<1, n>>>(d, n);
  cudaFree(d);
  std::printf("done\n");
  return 0;
}
