// GPU check of the runtime's attribution (built and run by scripts/runtime-checks.sh, checked by check_attribution.py):
// two kernels on four streams, many launches each, both calling one __device__ helper with
// opposite access patterns. The profile must split the helper's counters by calling kernel, count
// every launch, and (with --trace) trace the first launches of each kernel with exact element
// indices. `--exit` leaves through std::exit() from inside a function: the profile must still be
// written.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"

struct Body {
  float x, y, z, w;
  float vx, vy, vz, m;
};

__device__ float weigh(const Body* bodies, int i) { return bodies[i].m * bodies[i].x; }

// Lane i reads body i: 32 lanes, 32 bodies 32 bytes apart, 32 sectors per warp access.
__global__ void perBody(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = weigh(bodies, i);
}

// Every lane of a block reads the block's body: one address per warp access.
__global__ void perBlock(const Body* bodies, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += weigh(bodies, blockIdx.x);
}

static void leaveEarly() {
  std::printf("PASS (leaving through exit())\n");
  std::exit(0);
}

int main(int argc, char** argv) {
  bool viaExit = false;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--exit") == 0) {
      viaExit = true;
    } else {
      std::fprintf(stderr, "usage: %s [--exit]\n", argv[0]);
      return 2;
    }
  }
  const int n = 1 << 16, threads = 128, blocks = n / threads, launches = 40, streams = 4;
  std::vector<Body> host(n);
  for (int i = 0; i < n; ++i) host[i] = {float(i % 97), 0, 0, 0, 0, 0, 0, 1.0f + float(i % 5)};
  Body* bodies = nullptr;
  float* out = nullptr;
  CHECK(cudaMalloc(&bodies, n * sizeof(Body)));
  CHECK(cudaMalloc(&out, streams * n * sizeof(float)));
  CHECK(cudaMemcpy(bodies, host.data(), n * sizeof(Body), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, streams * n * sizeof(float)));
  cudaStream_t stream[streams];
  for (cudaStream_t& s : stream) CHECK(cudaStreamCreate(&s));
  // Stream s owns out[s*n, (s+1)*n): launches on one stream are ordered, streams overlap.
  for (int l = 0; l < launches; ++l) {
    const int s = l % streams;
    perBody<<<blocks, threads, 0, stream[s]>>>(bodies, out + s * n, n);
    perBlock<<<blocks, threads, 0, stream[s]>>>(bodies, out + s * n, n);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> result(streams * n);
  CHECK(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int s = 0; s < streams; ++s)
    for (int i = 0; i < n; ++i) {
      // The last launch pair on stream s wrote perBody, then perBlock added its block's body.
      const Body& b = host[i];
      const Body& block = host[i / threads];
      const float expected = b.m * b.x + block.m * block.x;
      if (std::fabs(result[s * n + i] - expected) > 1e-3f * (1 + std::fabs(expected)) && bad++ < 5)
        std::fprintf(stderr, "out[%d][%d] = %g, expected %g\n", s, i, result[s * n + i], expected);
    }
  for (cudaStream_t& s : stream) CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(bodies));
  CHECK(cudaFree(out));
  if (bad) {
    std::printf("FAIL: %d wrong values\n", bad);
    return 1;
  }
  if (viaExit) leaveEarly();
  std::printf("PASS\n");
  return 0;
}
