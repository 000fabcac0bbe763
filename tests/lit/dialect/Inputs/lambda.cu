// Thrust with a __device__ lambda, as nvcc compiles it under --extended-lambda: CCCL then asks
// nvcc's lambda traits (__nv_is_extended_device_lambda_closure_type, ...). The other CCCL and
// CUDA headers parse with __NVCC__ defined too.
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda/barrier>
#include <cuda/std/atomic>
#include <cuda/std/mdspan>
#include <cuda/std/span>
#include <thrust/device_vector.h>
#include <thrust/transform.h>

struct Sample {
  float value, weight;
};

__global__ void weigh(Sample* s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i].value *= s[i].weight;
}

int main() {
  thrust::device_vector<float> in(16, 1.0f), out(16);
  thrust::transform(in.begin(), in.end(), out.begin(), [] __device__(float x) { return 2.0f * x; });
  return 0;
}
