// A particle pusher whose records cannot be aligned without changing what the code reads.
#include <cuda_runtime.h>

#include <cstdint>

struct Vec2 {
  float x, y;
};

// Holds a Vec2 by value: aligning Vec2 would move `weight`.
struct Tracer {
  int id;
  Vec2 at;
  float weight;
};

struct Point3 {
  float x, y, z;  // 12 bytes: 16-byte alignment would pad every array of them
};

struct __align__(8) Charge {
  float q, m;
};

__global__ void push(Vec2* v, const Point3* p, const Charge* c, Tracer* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  v[i].x += p[i].x * c[i].q / c[i].m;
  v[i].y += p[i].y * c[i].q / c[i].m;
  t[i].at.x += v[i].x;
}

// Records carved out of one byte pool: only the pool's start is aligned.
__global__ void fromPool(unsigned char* pool, size_t offset, int n) {
  Vec2* v = reinterpret_cast<Vec2*>(pool + offset);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i].x = 0;
}
