// Allocation and copy forms with no rewritten form, one struct each: every one is refused with a
// warning that says why and what to write instead, and its struct keeps its layout, while Ok
// (allocated with a byte count relayout can show is whole) still changes.
#include <cstdlib>

struct Pitched { float x, y; };        // cudaMallocPitch
struct Copy2D { float x, y; };         // cudaMemcpy2D
struct Padded { float x, y, z; };      // bytes rounded up to 256: not a multiple of 12
struct Short { float x, y; };          // bytes minus sizeof(float)
struct Counted { float x, y, z; };     // a const variable's initializer, not whole
struct Ok { float x, y; };             // rounded up to 256, a multiple of 8: whole
struct Sym { float x, y; };            // copied into a __constant__ array of Sym
struct Untyped { float x, y; };        // an untyped buffer also set with cudaMemset

__constant__ Sym table[64];

__global__ void fill(Pitched* p, Copy2D* c, Padded* q, Short* s, Counted* k, Ok* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x = c[i].y + q[i].z + s[i].x + k[i].z + o[i].y;
}
__global__ void lookup(Sym* s, Untyped* u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i].x = table[i].y + u[i].x;
}

int main() {
  const int n = 100;
  Pitched* pitched = nullptr;
  size_t pitch = 0;
  cudaMallocPitch((void**)&pitched, &pitch, n * sizeof(Pitched), 4);
  Copy2D* host = (Copy2D*)std::malloc(n * sizeof(Copy2D));
  Copy2D* copy = nullptr;
  cudaMalloc(&copy, n * sizeof(Copy2D));
  cudaMemcpy2D(copy, sizeof(Copy2D), host, sizeof(Copy2D), sizeof(Copy2D), n, cudaMemcpyHostToDevice);
  Padded* padded = nullptr;
  cudaMalloc(&padded, (n * sizeof(Padded) + 255) / 256 * 256);
  Short* shortened = nullptr;
  cudaMalloc(&shortened, n * sizeof(Short));
  cudaMemset(shortened, 0, n * sizeof(Short) - sizeof(float));
  const size_t countedBytes = n * sizeof(Counted) + 4;
  Counted* counted = nullptr;
  cudaMalloc(&counted, countedBytes);
  Ok* ok = nullptr;
  cudaMalloc(&ok, (n * sizeof(Ok) + 255) / 256 * 256);
  fill<<<1, 128>>>(pitched, copy, padded, shortened, counted, ok, n);
  cudaFree(pitched);
  cudaFree(copy);
  cudaFree(padded);
  cudaFree(shortened);
  cudaFree(counted);
  cudaFree(ok);
  std::free(host);
  Sym* sym = nullptr;
  cudaMalloc(&sym, 64 * sizeof(Sym));
  char* raw = nullptr;
  cudaMalloc((void**)&raw, n * sizeof(Untyped));
  cudaMemset(raw, 0, n * sizeof(Untyped));
  lookup<<<1, 64>>>(sym, (Untyped*)raw, n);
  cudaMemcpyToSymbol(table, sym, 64 * sizeof(Sym), 0, cudaMemcpyDeviceToDevice);
  cudaFree(sym);
  cudaFree(raw);
  return 0;
}
