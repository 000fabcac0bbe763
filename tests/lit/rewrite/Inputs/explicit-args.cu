// Tracers and charged particles drift in one velocity field; a kernel template serves both, launched
// with its template argument written out, directly and from a host template.
#include <cstdio>
#include <vector>

struct Tracer {
  float x, y;
  float age;
};

struct Charged {
  float x, y;
  float q;
};

__device__ inline float fieldU(float x, float y) { return -y * 0.5f + 0.1f * x; }
__device__ inline float fieldV(float x, float y) { return x * 0.5f; }

template <typename P>
__global__ void drift(P* particles, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = particles[i].x, y = particles[i].y;
  particles[i].x = x + dt * fieldU(x, y);
  particles[i].y = y + dt * fieldV(x, y);
}

__global__ void age(Tracer* tracers, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tracers[i].age += dt;
}

template <typename P>
void advance(P* particles, int n, int steps, float dt) {
  const int threads = 128;
  for (int s = 0; s < steps; ++s) drift<P><<<(n + threads - 1) / threads, threads>>>(particles, n, dt);
}

int main() {
  const int n = 1000, m = 700, steps = 50;
  const float dt = 0.02f;
  std::vector<Tracer> tracers(n);
  std::vector<Charged> charged(m);
  for (int i = 0; i < n; ++i) tracers[i] = Tracer{0.001f * i, 1.0f - 0.001f * i, 0.0f};
  for (int i = 0; i < m; ++i) charged[i] = Charged{-0.5f + 0.002f * i, 0.3f, (i % 2) ? 1.0f : -1.0f};
  Tracer* dTracers;
  Charged* dCharged;
  cudaMalloc(&dTracers, n * sizeof(Tracer));
  cudaMalloc(&dCharged, m * sizeof(Charged));
  cudaMemcpy(dTracers, tracers.data(), n * sizeof(Tracer), cudaMemcpyHostToDevice);
  cudaMemcpy(dCharged, charged.data(), m * sizeof(Charged), cudaMemcpyHostToDevice);
  for (int s = 0; s < steps; ++s) {
    drift<Tracer><<<(n + 127) / 128, 128>>>(dTracers, n, dt);
    age<<<(n + 127) / 128, 128>>>(dTracers, n, dt);
  }
  advance(dCharged, m, steps, dt);
  cudaMemcpy(tracers.data(), dTracers, n * sizeof(Tracer), cudaMemcpyDeviceToHost);
  cudaMemcpy(charged.data(), dCharged, m * sizeof(Charged), cudaMemcpyDeviceToHost);
  double sx = 0, sy = 0, sa = 0, qx = 0;
  for (const Tracer& t : tracers) sx += t.x, sy += t.y, sa += t.age;
  for (const Charged& c : charged) qx += c.q * c.x;
  std::printf("tracers %.6f %.6f %.3f\n", sx, sy, sa);
  std::printf("charged %.6f\n", qx);
  cudaFree(dTracers);
  cudaFree(dCharged);
  return 0;
}
