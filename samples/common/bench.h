// Small helpers shared by the bundled samples: error checks, timing with CUDA events, the card's
// copy bandwidth, and the one-line result every variant prints. Plain CUDA, header only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CUDA_CHECK(call)                                                                     \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(err_), #call);                                         \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

namespace bench {

// Median time in milliseconds of `run` (which launches kernels), after one warm-up call.
inline double medianMs(const std::function<void()>& run, int repetitions = 5) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  run();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < repetitions; ++r) {
    CUDA_CHECK(cudaEventRecord(start));
    run();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

__global__ void copyKernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written), on 1 GiB buffers.
inline double copyBandwidthGBs() {
  const size_t n = (size_t(1) << 30) / sizeof(float4);
  float4 *a, *b;
  CUDA_CHECK(cudaMalloc(&a, n * sizeof(float4)));
  CUDA_CHECK(cudaMalloc(&b, n * sizeof(float4)));
  CUDA_CHECK(cudaMemset(a, 1, n * sizeof(float4)));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  double ms = medianMs([&] { copyKernel<<<sms * 8, 512>>>(a, b, n); });
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  return 2.0 * n * sizeof(float4) / (ms * 1e6);
}

// The line the results script collects:
// RESULT sample=NAME variant=VARIANT kernel_ms=T gbps=B copy_gbps=C pct_copy=P gflops=F check=PASS|FAIL
inline void printResult(const char* sample, const char* variant, double kernelMs, double bytesMoved, double flops,
                        double copyGBs, bool pass) {
  double gbps = bytesMoved / (kernelMs * 1e6);
  std::printf("RESULT sample=%s variant=%s kernel_ms=%.4f gbps=%.1f copy_gbps=%.1f pct_copy=%.1f gflops=%.1f check=%s\n",
              sample, variant, kernelMs, gbps, copyGBs, copyGBs > 0 ? 100.0 * gbps / copyGBs : 0.0,
              flops / (kernelMs * 1e6), pass ? "PASS" : "FAIL");
}

}  // namespace bench
