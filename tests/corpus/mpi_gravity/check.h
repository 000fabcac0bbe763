#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    const cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "mpi_gravity: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorString(status_));                                                \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)
