// A second translation unit: its own site and loop ids from 0, its own counters.
struct Particle { float x, y; };
__global__ void other(Particle* p, int n) {
  for (int i = threadIdx.x; i < n; i += 32) p[i].y = p[i].x;
}
