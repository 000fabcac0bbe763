// One struct per reason a use cannot be rewritten yet; every one keeps its layout, while K, used
// only in ways that can be rewritten, still changes (and so does E).
#include <cstring>

#define RHO(c, i) c[i].rho

struct A { float rho, u; };   // field access inside a macro body
struct B { float x, y; };     // a reference to a whole element
struct C { float x, y; };     // an element's address stored away
struct D { float x, y; };     // cast to char*
struct E { float x, y; };     // passed to a kernel template: rewritten in its text
struct F { float x, y; };     // kernel also launched with a host array from new[]
struct G { float x, y; };     // passed to a function the sources do not define
struct H { float x, y; };     // handed to inline PTX
struct I { float x, y; };     // copied host -> device asynchronously
struct J { float x, y; };     // a copy of the pointer moved backwards
union U { float f; int i; };  // a union: its fields share one place
struct K { float x, y; };     // rewritten

__global__ void ka(A* a, int n) { int i = threadIdx.x; if (i < n) RHO(a, i) = a[i].u; }
__global__ void kb(B* b, int n) { int i = threadIdx.x; if (i < n) { B& t = b[i]; b[i].x = (&t)->y; } }
template <int N> __global__ void ke(E* e) { e[threadIdx.x].x = N; }
__global__ void ku(U* u) { u[threadIdx.x].f = 1.0f; }
__global__ void kf(F* f) { f[threadIdx.x].x = 1; }
__global__ void kk(K* k) { k[threadIdx.x].y = k[threadIdx.x].x; }
void external(G* g, int n);
__global__ void kh(H* h) {
  float v;
  asm("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(h + threadIdx.x));
  h[threadIdx.x].y = v;
}

int main() {
  const int n = 256;
  A* da; B* db; C* dc; D* dd; E* de; F* df; G* dg; H* dh; I* di; J* dj;
  cudaMalloc(&da, n * sizeof(A));
  cudaMalloc(&db, n * sizeof(B));
  cudaMalloc(&dc, n * sizeof(C));
  void* alias = &dc[1];
  cudaMalloc(&dd, n * sizeof(D));
  char* bytes = (char*)dd;
  cudaMalloc(&de, n * sizeof(E));
  ke<4><<<1, n>>>(de);
  cudaMalloc(&df, n * sizeof(F));
  F* heap = new F[n];
  kf<<<1, n>>>(df);
  kf<<<1, n>>>(heap);
  cudaMalloc(&dg, n * sizeof(G));
  external(dg, n);
  ka<<<1, n>>>(da, n);
  kb<<<1, n>>>(db, n);
  cudaMalloc(&dh, n * sizeof(H));
  kh<<<1, n>>>(dh);
  I hi[256] = {};
  cudaMalloc(&di, n * sizeof(I));
  cudaMemcpyAsync(di, hi, n * sizeof(I), cudaMemcpyHostToDevice);
  cudaMalloc(&dj, n * sizeof(J));
  J* last = dj + (n - 1);
  last -= 1;
  U* du;
  cudaMalloc(&du, n * sizeof(U));
  ku<<<1, n>>>(du);
  K* dk;
  cudaMalloc(&dk, n * sizeof(K));
  kk<<<1, n>>>(dk);
  cudaFree(dk);
  (void)alias;
  (void)bytes;
  delete[] heap;
  return 0;
}
