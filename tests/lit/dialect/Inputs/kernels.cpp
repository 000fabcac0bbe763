// CUDA in a .cpp file, built with `nvcc -x cu`.
struct Atom {
  float q, r;
};

__global__ void charge(Atom* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i].q * a[i].r;
}
