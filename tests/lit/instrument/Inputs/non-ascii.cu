// A struct whose field names are not all ASCII identifiers (C++ allows UTF-8 ones; Clang and nvcc
// accept them).
struct Messpunkt {
  float höhe;
  float x, y;
};

__global__ void lift(Messpunkt* m, int n, float dz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i].höhe += dz;
  if (i < n) m[i].x *= 2.0f;
}

struct Plain {
  float a, b;
};

__global__ void scale(Plain* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].a *= p[i].b;
}
