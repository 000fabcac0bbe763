// Bodies moving in a plane, and the upload helper every unit of the program uses.
#pragma once
#include <cuda_runtime.h>

#include <vector>

struct Body {
  float x, y, vx, vy;
};

template <class T>
T* toDevice(const std::vector<T>& host) {
  T* device = nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return device;
}

void stepBodies(Body* bodies, int n);
float sumX(const Body* bodies, int n);
