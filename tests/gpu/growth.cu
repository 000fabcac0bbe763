// GPU check of launch sampling's growth rule (built and run by scripts/runtime-checks.sh, checked
// by check_growth.py): a particle kernel run first on a small check problem, then on the real
// one, then on a larger one. With --sample-launches 1 --checkpoint-launches 8 the profile must
// classify the first launch, the first launch of each grid that grew 4x and the 8th launch (a
// checkpoint, at its weight), every block of them (--sample-blocks 1), and count every block run,
// by the instrumented kernel or by its plain copy.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__global__ void drift(Particle* p, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i].x += dt * p[i].vx;
  p[i].y += dt * p[i].vy;
  p[i].z += dt * p[i].vz;
}

// Runs `steps` steps on n particles moving at (1, 2, 3); returns how many ended where expected.
static int run(int n, int steps) {
  std::vector<Particle> host(n, Particle{0, 0, 0, 1, 2, 3});
  Particle* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(Particle)));
  CHECK(cudaMemcpy(p, host.data(), n * sizeof(Particle), cudaMemcpyHostToDevice));
  for (int s = 0; s < steps; ++s) drift<<<(n + 127) / 128, 128>>>(p, n, 0.5f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host.data(), p, n * sizeof(Particle), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(p));
  int good = 0;
  for (const Particle& q : host) good += q.x == 0.5f * steps && q.y == steps && q.z == 1.5f * steps;
  return good;
}

int main() {
  // The check problem, the timed one, a larger one: 16, 256 and 2048 blocks of 128 threads.
  const int sizes[] = {16 * 128, 256 * 128, 2048 * 128}, steps[] = {3, 3, 2};
  for (int r = 0; r < 3; ++r) {
    const int good = run(sizes[r], steps[r]);
    if (good != sizes[r]) {
      std::printf("FAIL: %d of %d particles wrong after %d steps\n", sizes[r] - good, sizes[r], steps[r]);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
