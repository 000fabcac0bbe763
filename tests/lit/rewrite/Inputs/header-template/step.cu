#include "bodies.h"

__global__ void step(Body* bodies, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    bodies[i].x += bodies[i].vx;
    bodies[i].y += bodies[i].vy;
  }
}

void stepBodies(Body* bodies, int n) { step<<<(n + 255) / 256, 256>>>(bodies, n); }

float sumX(const Body* bodies, int n) {
  std::vector<Body> host(n);
  cudaMemcpy(host.data(), bodies, n * sizeof(Body), cudaMemcpyDeviceToHost);
  float sum = 0.f;
  for (const Body& b : host) sum += b.x;
  return sum;
}

// A second swarm, uploaded in this unit too.
Body* makeSwarm(int n) { return toDevice(std::vector<Body>(n, Body{1.f, 2.f, 0.5f, 0.25f})); }
