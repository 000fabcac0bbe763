#include "cuda_check.h"
#include "particles.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// One upload helper for every array the program moves to the device.
template <typename T>
T* upload(const std::vector<T>& host) {
  T* device = nullptr;
  CHECK(cudaMalloc(&device, host.size() * sizeof(T)));
  CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int steps = 200;
  const float dt = 0.01f;
  std::vector<Particle> host(n);
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) {
    float a = 0.37f * float(i);
    host[i] = Particle{std::cos(a) * (1.0f + 0.001f * float(i)), std::sin(a), -std::sin(a), 0.5f * std::cos(a),
                       1.0f + float(i % 7)};
    ids[i] = i;
  }
  Particle* a = upload(host);
  int* deviceIds = upload(ids);
  Particle* b;
  CHECK(cudaMalloc(&b, n * sizeof(Particle)));
  Particle* last = integrate(a, b, n, steps, dt);
  if (!last) return 1;
  std::vector<Particle> result(n);
  CHECK(cudaMemcpy(result.data(), last, n * sizeof(Particle), cudaMemcpyDeviceToHost));
  const Particle* nearest = nearestOrigin(last, n);
  Particle close;
  CHECK(cudaMemcpy(&close, nearest, sizeof(Particle), cudaMemcpyDeviceToHost));
  double energy = 0.0;
  for (const Particle& p : result)
    energy += 0.5 * p.mass * (p.vx * p.vx + p.vy * p.vy) + 0.5 * (p.x * p.x + p.y * p.y);
  std::printf("energy %.6e\n", energy);
  std::printf("nearest %.6f %.6f\n", close.x, close.y);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(deviceIds));
  return 0;
}
