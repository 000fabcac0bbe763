// Forms the rewriter accepts beyond the plain stream: a struct in a namespace, a typedef'd
// anonymous struct, casts around the runtime calls, a null initializer, a prototype, ->, sizeof,
// macro arguments (one used twice), and two pointers declared together.
#include <cstdio>
#include <vector>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e_)); return 1; } } while (0)
#define SQR(v) ((v) * (v))

namespace sim {
struct Body {
  double m;  // mass
  float x, y;
  int id;
};  // keeps this comment on its line
}

typedef struct { float a, b; } Pair;

__global__ void touch(sim::Body* __restrict__ b, int n);

__device__ float weight(const sim::Body *b, int i) { return b[i].m * b[i].x; }

__global__ void touch(sim::Body* __restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i].x = weight(b, i) + b->y;
    b[i].id = (int)sizeof(b[0]);
  }
}

__global__ void pairs(Pair *p, Pair *q, int n) {
  int i = threadIdx.x;
  if (i < n) p[i].a = SQR(q[i].b) + p[i] . b;
}

int main() {
  const int n = 64;
  std::vector<sim::Body> h(n);
  sim::Body* d_b = nullptr;
  CHECK(cudaMalloc((void**)&d_b, n * sizeof(*d_b)));
  CHECK(cudaMemcpy((void*)d_b, (const void*)h.data(), n * sizeof(sim::Body), cudaMemcpyHostToDevice));
  touch<<<1, 32>>>(d_b, n);
  CHECK(cudaMemcpy(&h[0], d_b, n * sizeof(sim::Body), cudaMemcpyDeviceToHost));
  cudaFree((void*)d_b);

  Pair *d_p, *d_q;
  cudaMalloc(&d_p, n * sizeof(Pair));
  cudaMalloc(&d_q, n * sizeof(Pair));
  pairs<<<1, 32>>>(d_p, d_q, n);
  cudaFree(d_p); cudaFree(d_q);
  return 0;
}
