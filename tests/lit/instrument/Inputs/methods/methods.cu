#include "body.h"

// A const getter: reads through `this`.
__global__ void angles(const Body* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i].angle();
}

// A setter: writes through `this`.
__global__ void results(Body* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i].setResult(1.0f, 2.0f, 3.0f);
}

// A member operator+= on an element.
__global__ void push(Body* b, Vec d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += d;
}

// A constructor's temporary assigned to an element: the element's fields are written by the
// assignment, the constructor writes the (local) temporary.
__global__ void reset(Body* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = Body(2.0f);
}

// A copy of `*this` made in the member function, assigned to another element.
__global__ void halves(const Body* in, Body* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i].halved();
}

// Through a pointer to an element and a reference parameter bound to one.
__device__ float massOf(const Body& r) { return r.getMass(); }
__global__ void energies(const Body* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const Body* q = b + i;
  if (i < n) out[i] = q->energy() + massOf(b[i]);
}

// A local object: getMass is hooked, but its address is not in global memory, so nothing is
// classified; scaled is called on a local only, so it is not hooked.
__global__ void locals(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Body t(i * 0.5f);
  if (i < n) out[i] = t.getMass() + t.scaled(2.0f);
}

// What cannot be counted is reported with its location.
__global__ void elsewhere(const Body* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = b[i].remote();
}

// A user-written assignment counts in its body (its parameter is bound to an element), not as a
// whole-element copy at the call.
struct Cell {
  float v, w;
  __device__ Cell& operator=(const Cell& o) {
    v = o.v;
    this->w = o.w;
    return *this;
  }
};
__global__ void copyCells(Cell* dst, const Cell* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Host code calling a member function on a host array hooks nothing.
float hostScaled(const Body* b) { return b[0].scaled(2.0f); }
