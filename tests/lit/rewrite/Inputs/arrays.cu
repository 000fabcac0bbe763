// Fixed-size array fields: in the SoA layout each is split into one run per index.
#include <vector>

struct Element {
  float area;
  int neighbor[4];
  float normal[4][3];
};

__global__ void flux(const Element* e, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0;
  for (int k = 0; k < 4; ++k)
    if (e[i].neighbor[k] >= 0) sum += e[i].normal[k][0] * e[i].area;
  out[i] = sum;
}

int main() {
  const int n = 512;
  std::vector<Element> h(n);
  Element* d_e;
  float* d_out;
  cudaMalloc(&d_e, n * sizeof(Element));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_e, h.data(), n * sizeof(Element), cudaMemcpyHostToDevice);
  flux<<<n / 128, 128>>>(d_e, d_out, n);
  cudaFree(d_e);
  cudaFree(d_out);
  return 0;
}
