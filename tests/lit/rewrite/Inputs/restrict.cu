// __restrict__ parameters: the rewritten kernels keep read-only-cache loads through restrict
// locals for the arrays they touch; a parameter moved in its body, a lambda's capture and a
// whole-element copy keep using the device struct.
namespace fluid {
struct Node {
  float p, q;
  float w[3];
  int tag;
};
}  // namespace fluid

__device__ float sum(const fluid::Node* __restrict__ n, int i) { return n[i].p + n->q; }

__global__ void step(const fluid::Node* __restrict__ in, fluid::Node* __restrict__ out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i].p = in[i].p * in[i].w[0] + sum(in, i);
  out[i].w[1] = in[i].w[2];
  out->tag = in[i].tag;
  auto twice = [=] { return 2.0f * in[i].q; };
  out[i].q = twice();
  const fluid::Node copy = in[i];
  out[i].tag += copy.tag;
}

__global__ void walk(fluid::Node* __restrict__ cur, int n, int stride) {
  for (int k = 0; k < n; k += stride, cur = cur + stride) cur[0].p += 1.0f;
}

int main() {
  const int n = 256;
  fluid::Node *a, *b;
  cudaMalloc(&a, n * sizeof(fluid::Node));
  cudaMalloc(&b, n * sizeof(fluid::Node));
  step<<<1, n>>>(a, b, n);
  walk<<<1, 1>>>(b, n, 4);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
