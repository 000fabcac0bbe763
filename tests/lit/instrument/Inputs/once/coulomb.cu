// Direct-sum Coulomb forces over all pairs, then an explicit Euler move.
#include "charge.h"

__device__ float softened(float r2) { return rsqrtf(r2 + 1e-4f) / (r2 + 1e-4f); }

__global__ void forces(Charge* charges, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = charges[i].px(), yi = charges[i].py(), qi = charges[i].charge();
  float gx = 0.f, gy = 0.f;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    const float dx = xi - charges[j].px(), dy = yi - charges[j].py();
    const float s = qi * charges[j].charge() * softened(dx * dx + dy * dy);
    gx += s * dx;
    gy += s * dy;
  }
  charges[i].setForce(gx, gy);
}

__global__ void move(Charge* charges, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    charges[i].x += dt * charges[i].fx;
    charges[i].y += dt * charges[i].fy;
  }
}
