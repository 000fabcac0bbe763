// Elements of a device array used through references and pointers, as physics codes write them.
#include <cstdio>
#include <cuda_runtime.h>

namespace sim {

struct Body {
  float3 pos;
  float3 vel;
  float mass;
  float charge[2];

  __host__ __device__ float speed2() const { return vel.x * vel.x + vel.y * vel.y + vel.z * vel.z; }
};

__host__ __device__ inline float dist2(const Body& a, const Body& b) {
  float dx = a.pos.x - b.pos.x, dy = a.pos.y - b.pos.y, dz = a.pos.z - b.pos.z;
  return dx * dx + dy * dy + dz * dz;
}

__host__ __device__ inline void clampVelocity(Body& b, float vmax) {
  if (b.vel.x > vmax) b.vel.x = vmax;
}

// Moves one body; a host copy of the bodies uses it too.
__host__ __device__ inline void drift(Body& b, float dt, float vmax) {
  clampVelocity(b, vmax);
  b.pos.x += dt * b.vel.x;
  b.pos.y += dt * b.vel.y;
  b.pos.z += dt * b.vel.z;
}

}  // namespace sim

using sim::Body;

__global__ void step(Body* bodies, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sim::drift(bodies[i], dt, 4.f);
  Body& me = bodies[i];
  me.charge[0] += 0.5f * me.charge[1];
  Body* next = &bodies[(i + 1) % n];
  next->mass += 0.f;
  float near = sim::dist2(bodies[i], bodies[(i + 1) % n]);
  if (near < 1e-6f || bodies[i].speed2() > 1e6f) me.mass *= 0.5f;
}

int main() {
  const int n = 1000;
  Body* host = new Body[n];
  for (int i = 0; i < n; ++i) {
    Body& b = host[i];
    b.pos = make_float3(i, 0.f, 0.f);
    b.vel = make_float3(1.f, 0.5f, 0.25f);
    b.mass = 1.f;
    b.charge[0] = b.charge[1] = 1.f;
    sim::drift(b, 0.f, 4.f);  // the host copy keeps calling the original
  }
  Body* d = nullptr;
  cudaMalloc(&d, n * sizeof(Body));
  cudaMemcpy(d, host, n * sizeof(Body), cudaMemcpyHostToDevice);
  step<<<(n + 127) / 128, 128>>>(d, n, 0.01f);
  cudaMemcpy(host, d, n * sizeof(Body), cudaMemcpyDeviceToHost);
  printf("%.4f %.4f\n", host[7].pos.x, host[7].charge[0]);
  cudaFree(d);
  delete[] host;
  return 0;
}
