// Second unit of the self-test: block sampling (only blocks whose linear id is a multiple of
// RELAYOUT_BLOCK_PERIOD classify), and two instrumented units linked into one program.
#define RELAYOUT_UNIT_SOURCE "period_selftest.cu"
#define RELAYOUT_UNIT_SHA256 "0000000000000000000000000000000000000000000000000000000000000002"
#define RELAYOUT_NUM_SITES 1
#define RELAYOUT_BLOCK_PERIOD 3
#include "relayout/rt.cuh"
#include "relayout/warp_classify.h"

#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void periodKernel(float* buf) {
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned i = b * blockDim.x + threadIdx.x;
  *__rl_site(0, &buf[i]) += 1.0f;
}

int runPeriodSelftest() {
  const dim3 grid(5, 3, 2), block(64);
  const unsigned blocks = grid.x * grid.y * grid.z, n = blocks * block.x;
  float* buf = nullptr;
  if (cudaMalloc(&buf, n * sizeof(float)) != cudaSuccess) return std::printf("FAIL period: cudaMalloc\n"), 1;
  cudaMemset(buf, 0, n * sizeof(float));
  periodKernel<<<grid, block>>>(buf);
  cudaError_t err = cudaDeviceSynchronize();
  unsigned long long got[6] = {};
  if (err == cudaSuccess) err = cudaError_t(__rl_fetch(got, 1));
  cudaFree(buf);
  if (err != cudaSuccess) return std::printf("FAIL period: %s\n", cudaGetErrorString(err)), 1;

  uint64_t expect[6] = {};
  for (unsigned b = 0; b < blocks; b += 3)  // linear block ids 0, 3, 6, ...
    for (unsigned w = 0; w < block.x / 32; ++w) {
      uint64_t addr[32];
      for (unsigned l = 0; l < 32; ++l) addr[l] = reinterpret_cast<uint64_t>(buf) + 4ull * (b * block.x + w * 32 + l);
      relayout::rt::WarpCounters c = relayout::rt::classifyWarp(addr, ~0u);
      for (unsigned k = 0; k < 6; ++k) expect[k] += c.column(k);
    }
  for (unsigned k = 0; k < 6; ++k)
    if (got[k] != expect[k])
      return std::printf("FAIL block period 3: column %u = %llu, reference %llu\n", k, got[k],
                         (unsigned long long)expect[k]), 1;
  std::printf("PASS block period 3 over a 5x3x2 grid (%llu of %u warps classified)\n", got[0], blocks * 2);
  return 0;
}
