// One struct per reason a use cannot be rewritten yet; every one keeps its layout.
#include <cstring>

#define RHO(c, i) c[i].rho

struct A { float rho, u; };   // field access inside a macro body
struct B { float x, y; };     // a whole element copied
struct C { float x, y; };     // pointer stored in another variable
struct D { float x, y; };     // device-to-device copy
struct E { float x, y; };     // passed to a template kernel
struct F { float x, y; };     // kernel also launched with a host-side array
struct G { float x, y; };     // passed to a function the sources do not define

__global__ void ka(A* a, int n) { int i = threadIdx.x; if (i < n) RHO(a, i) = a[i].u; }
__global__ void kb(B* b, int n) { int i = threadIdx.x; if (i < n) { B t = b[i]; b[i].x = t.y; } }
template <int N> __global__ void ke(E* e) { e[threadIdx.x].x = N; }
__global__ void kf(F* f) { f[threadIdx.x].x = 1; }
void external(G* g, int n);

int main() {
  const int n = 256;
  A* da; B* db; C* dc; D* dd; D* dd2; E* de; F* df; G* dg;
  cudaMalloc(&da, n * sizeof(A));
  cudaMalloc(&db, n * sizeof(B));
  cudaMalloc(&dc, n * sizeof(C));
  C* alias = dc;
  cudaMalloc(&dd, n * sizeof(D));
  cudaMalloc(&dd2, n * sizeof(D));
  cudaMemcpy(dd2, dd, n * sizeof(D), cudaMemcpyDeviceToDevice);
  cudaMalloc(&de, n * sizeof(E));
  ke<4><<<1, n>>>(de);
  cudaMalloc(&df, n * sizeof(F));
  F* managed;
  cudaMallocManaged(&managed, n * sizeof(F));
  kf<<<1, n>>>(df);
  kf<<<1, n>>>(managed);
  cudaMalloc(&dg, n * sizeof(G));
  external(dg, n);
  ka<<<1, n>>>(da, n);
  kb<<<1, n>>>(db, n);
  (void)alias;
  return 0;
}
