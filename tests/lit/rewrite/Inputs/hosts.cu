// Every way a host program allocates the arrays: device (cudaMalloc), managed, pinned
// (cudaMallocHost, cudaHostAlloc), and plain host memory (malloc, new[], std::vector).
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                           \
  do {                                                        \
    cudaError_t err_ = (call);                                \
    if (err_ != cudaSuccess) {                                \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(err_)); \
      return 1;                                               \
    }                                                         \
  } while (0)

struct Cell {  // pinned staging, copied asynchronously, and read by a kernel in place (zero-copy)
  float rho, e;
  float u, v;
};

struct Atom {  // managed: host and kernels share it
  float x, y, z;
  int kind;
};

struct Grain {  // plain host arrays: malloc, new[], std::vector; copies gather and scatter
  float r, m;
};

__global__ void relax(Cell* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i].e += 0.5f * (c[i].u * c[i].u + c[i].v * c[i].v) * c[i].rho;
}

__global__ void drift(Atom* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i].x += a[i].kind;
}

__global__ void grow(Grain* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i].r *= g[i].m;
}

// A host helper: the copy inside follows what its callers pass (here pinned -> device).
static cudaError_t upload(Cell* dst, const Cell* src, int n, cudaStream_t s) {
  return cudaMemcpyAsync(dst, src, n * sizeof(Cell), cudaMemcpyHostToDevice, s);
}

int main() {
  const int n = 1024, half = n / 2;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // Pinned: filled on the host, copied asynchronously (whole and a slice), read by a kernel.
  Cell* staging = nullptr;
  Cell* mapped = nullptr;
  Cell* d_cells = nullptr;
  CHECK(cudaMallocHost(&staging, n * sizeof(Cell)));
  CHECK(cudaHostAlloc((void**)&mapped, n * sizeof(Cell), cudaHostAllocMapped));
  CHECK(cudaMalloc(&d_cells, n * sizeof(Cell)));
  for (int i = 0; i < n; ++i) {
    staging[i].rho = 1.0f;
    staging[i].e = 0.0f;
    staging[i].u = staging[i].v = float(i);
  }
  const Cell first = staging[0];
  staging[n - 1] = first;
  CHECK(upload(d_cells, staging, half, stream));
  CHECK(cudaMemcpyAsync(d_cells + half, staging + half, (n - half) * sizeof(Cell), cudaMemcpyHostToDevice, stream));
  relax<<<(n + 255) / 256, 256, 0, stream>>>(d_cells, n);
  CHECK(cudaMemcpyAsync(staging, d_cells, n * sizeof(Cell), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpy(mapped, staging, n * sizeof(Cell), cudaMemcpyDefault));
  relax<<<(n + 255) / 256, 256, 0, stream>>>(mapped, n);  // zero-copy: the kernel reads host memory
  CHECK(cudaStreamSynchronize(stream));
  std::printf("%f %f\n", staging[1].e, mapped[1].e);
  CHECK(cudaFreeHost(staging));
  CHECK(cudaFreeHost(mapped));
  CHECK(cudaFree(d_cells));

  // Managed: the host writes it, a kernel updates it, the host reads it back into a vector.
  Atom* atoms;
  CHECK(cudaMallocManaged(&atoms, n * sizeof(Atom)));
  CHECK(cudaMemset(atoms, 0, n * sizeof(Atom)));
  for (int i = 0; i < n; ++i) atoms[i].kind = i % 3;
  drift<<<(n + 255) / 256, 256>>>(atoms, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<Atom> snapshot(n);
  CHECK(cudaMemcpy(snapshot.data(), atoms, n * sizeof(Atom), cudaMemcpyDeviceToHost));
  std::printf("%f %d\n", atoms[n - 1].x, snapshot[2].kind);
  CHECK(cudaFree(atoms));

  // Host memory from malloc, new[] and std::vector keeps the original struct: the copies gather
  // and scatter the fields, also for slices.
  Grain* heap = (Grain*)std::malloc(n * sizeof(Grain));
  Grain* fresh = new Grain[n];
  std::vector<Grain> grains(n, Grain{1.0f, 2.0f});
  Grain* d_grains;
  CHECK(cudaMalloc(&d_grains, n * sizeof(Grain)));
  CHECK(cudaMemcpy(d_grains, grains.data(), half * sizeof(Grain), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_grains + half, grains.data() + half, (n - half) * sizeof(Grain), cudaMemcpyHostToDevice));
  grow<<<(n + 255) / 256, 256>>>(d_grains, n);
  CHECK(cudaMemcpy(heap, d_grains, n * sizeof(*heap), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(fresh + half, d_grains + half, (n - half) * sizeof(Grain), cudaMemcpyDeviceToHost));
  std::printf("%f %f\n", heap[3].r, fresh[n - 1].r);
  std::free(heap);
  delete[] fresh;
  CHECK(cudaFree(d_grains));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
