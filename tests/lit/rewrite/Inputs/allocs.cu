// Allocation and copy forms a CUDA program writes, one struct each: cast arguments, stream-ordered
// allocation and memset, host arrays of every kind meeting a device array in a copy (new[], a
// std::vector's data(), a fixed-size local array), typedef'd structs and vector-type members.
#include <cstdio>
#include <vector>

#define CHECK(call)                                           \
  do {                                                        \
    cudaError_t err_ = (call);                                \
    if (err_ != cudaSuccess) {                                \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(err_)); \
      return 1;                                               \
    }                                                         \
  } while (0)

#define MAXN 256

struct Cast { float x, y; };      // (void**)&d and reinterpret_cast<void**>(&d)
struct Stream { float x, y; };    // cudaMallocAsync / cudaMemsetAsync / cudaFreeAsync
struct Heap { float x, y; };      // new[] / delete[] on the host, copied both ways
struct Vec { float x, y; };       // std::vector<Vec>, copied through data()
struct Fixed { float x, y; };     // Fixed h[MAXN]: a host array of fixed size
typedef struct { float x, y; } Anon;         // planned as "Anon"
typedef struct _Tagged { float x, y; } Tagged;  // planned as "Tagged" (analysis writes "_Tagged")
struct Vectors { float3 p; float4 q; int2 r; double2 w; };  // vector-type members
struct Raw { float x, y; };       // char* buf from cudaMalloc, cast to Raw* at the launch

__global__ void scale(Cast* a, Cast* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i].x += b[i].y;
}
__global__ void step(Stream* s, Heap* h, Vec* v, Fixed* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i].x += h[i].y + v[i].x + f[i].y;
}
__global__ void both(Anon* a, Tagged* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i].x = t[i].y;
}
__global__ void decay(Raw* r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i].x *= r[i].y;
}
__global__ void move(Vectors* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].p.x += v[i].q.w;
    v[i].r.y = int(v[i].w.x);
  }
}

int main() {
  const int n = 100;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  Cast* a = nullptr;
  Cast* b = nullptr;
  CHECK(cudaMalloc((void**)&a, n * sizeof(Cast)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&b), n * sizeof(Cast)));
  CHECK(cudaMemset(a, 0, n * sizeof(Cast)));
  CHECK(cudaMemcpy(b, a, n * sizeof(Cast), cudaMemcpyDeviceToDevice));
  scale<<<1, 128>>>(a, b, n);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));

  Stream* s = nullptr;
  CHECK(cudaMallocAsync(&s, n * sizeof(Stream), stream));
  CHECK(cudaMemsetAsync(s, 0, n * sizeof(Stream), stream));
  Heap* heap = new Heap[n];
  for (int i = 0; i < n; ++i) heap[i] = Heap{1.0f, 2.0f};
  Heap* d_heap = nullptr;
  CHECK(cudaMalloc(&d_heap, n * sizeof(Heap)));
  CHECK(cudaMemcpy(d_heap, heap, n * sizeof(Heap), cudaMemcpyHostToDevice));
  std::vector<Vec> vec(n, Vec{3.0f, 4.0f});
  Vec* d_vec = nullptr;
  CHECK(cudaMalloc(&d_vec, n * sizeof(Vec)));
  CHECK(cudaMemcpy(d_vec, vec.data(), n * sizeof(Vec), cudaMemcpyHostToDevice));
  Fixed fixed[MAXN];
  for (int i = 0; i < n; ++i) fixed[i] = Fixed{5.0f, 6.0f};
  Fixed* d_fixed = nullptr;
  const size_t fixedBytes = n * sizeof(Fixed);
  CHECK(cudaMalloc(&d_fixed, fixedBytes));
  CHECK(cudaMemcpy(d_fixed, fixed, fixedBytes, cudaMemcpyHostToDevice));
  step<<<1, 128, 0, stream>>>(s, d_heap, d_vec, d_fixed, n);
  CHECK(cudaMemcpy(heap, d_heap, n * sizeof(Heap), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(fixed, d_fixed, n * sizeof(Fixed), cudaMemcpyDeviceToHost));
  CHECK(cudaFreeAsync(s, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("%f %f\n", heap[1].x, fixed[1].y);
  delete[] heap;
  CHECK(cudaFree(d_heap));
  CHECK(cudaFree(d_vec));
  CHECK(cudaFree(d_fixed));

  Anon* anon = nullptr;
  Tagged* tagged = nullptr;
  CHECK(cudaMalloc(&anon, n * sizeof(Anon)));
  CHECK(cudaMalloc(&tagged, n * sizeof(Tagged)));
  both<<<1, 128>>>(anon, tagged, n);
  CHECK(cudaFree(anon));
  CHECK(cudaFree(tagged));

  Vectors* v = nullptr;
  CHECK(cudaMalloc(&v, (n + 32) * sizeof(Vectors)));
  move<<<1, 128>>>(v, n);
  CHECK(cudaFree(v));

  char* buf = nullptr;
  CHECK(cudaMalloc((void**)&buf, n * sizeof(Raw)));
  decay<<<1, 128>>>((Raw*)buf, n);
  CHECK(cudaFree(buf));
  return 0;
}
