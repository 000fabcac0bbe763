#include <thrust/device_ptr.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include "sorting.h"

void stableSortByKey(float* keys, int* values, int n) {
  thrust::stable_sort_by_key(thrust::device_ptr<float>(keys), thrust::device_ptr<float>(keys + n),
                             thrust::device_ptr<int>(values));
}

int exclusiveScan(const int* in, int* out, int n) {
  thrust::exclusive_scan(thrust::device_ptr<const int>(in), thrust::device_ptr<const int>(in + n),
                         thrust::device_ptr<int>(out));
  int last = 0, lastOffset = 0;
  cudaMemcpy(&last, in + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&lastOffset, out + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  return lastOffset + last;
}
