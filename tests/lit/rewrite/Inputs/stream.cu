// A streaming update: every thread reads and writes a few fields of its own particle.
#include <cstdio>
#include <vector>

#define CHECK(call)                                                \
  do {                                                             \
    cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                     \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(err_));      \
      return 1;                                                    \
    }                                                              \
  } while (0)

struct Particle {
  float x, y, z;     // position
  float vx, vy, vz;  // velocity
  float mass, charge;
};

__global__ void update(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].vz += p[i].charge / p[i].mass * dt;
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

int main() {
  const int n = 1 << 20;
  const float dt = 0.01f;
  std::vector<Particle> h(n);
  for (int i = 0; i < n; ++i) h[i] = {float(i), 0, 0, 1, 1, 1, 1, -1};
  Particle* d_p;
  CHECK(cudaMalloc(&d_p, n * sizeof(Particle)));
  CHECK(cudaMemcpy(d_p, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
  update<<<(n + 255) / 256, 256>>>(d_p, n, dt);
  CHECK(cudaMemcpy(h.data(), d_p, n * sizeof(Particle), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_p));
  std::printf("%f %f\n", h[n - 1].x, h[n - 1].vz);
  return 0;
}
