// Just enough of CUDA's runtime API to run host code on the CPU, for split-run.test: device,
// managed and pinned memory are plain host memory and every copy is a memmove. It checks the
// arithmetic of rewritten host code (indexes, copies, gathers), not CUDA semantics.
#pragma once

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// It stands in for cuda_runtime.h, so it defines that header's guard too: rewritten code compiles
// its CUDA helpers where the runtime is declared.
#define __CUDA_RUNTIME_H__
#define __host__
#define __device__
#define __align__(n) alignas(n)

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault
};
typedef struct CUstream_st* cudaStream_t;
constexpr unsigned cudaMemAttachGlobal = 1, cudaHostAllocDefault = 0, cudaHostAllocMapped = 2;

template <class T>
cudaError_t cudaMalloc(T** p, size_t bytes) {
  *p = static_cast<T*>(malloc(bytes ? bytes : 1));
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T>
cudaError_t cudaMallocManaged(T** p, size_t bytes, unsigned = cudaMemAttachGlobal) { return cudaMalloc(p, bytes); }
template <class T>
cudaError_t cudaMallocHost(T** p, size_t bytes, unsigned = cudaHostAllocDefault) { return cudaMalloc(p, bytes); }
template <class T>
cudaError_t cudaHostAlloc(T** p, size_t bytes, unsigned) { return cudaMalloc(p, bytes); }
inline cudaError_t cudaFree(void* p) { return free(p), cudaSuccess; }
inline cudaError_t cudaFreeHost(void* p) { return free(p), cudaSuccess; }
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  return memmove(dst, src, bytes), cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t = 0) {
  return cudaMemcpy(dst, src, bytes, kind);
}
inline cudaError_t cudaMemset(void* p, int value, size_t bytes) { return memset(p, value, bytes), cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
