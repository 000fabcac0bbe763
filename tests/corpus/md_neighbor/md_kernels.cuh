// Force evaluation over the neighbour list and the velocity-Verlet integration.
// Positions are float4 {x, y, z, unused}, velocities float4 {vx, vy, vz, mass}.
#pragma once
#include "lj.h"

// Each thread sums the forces on its atom from its neighbour list, in the list's order.
__global__ void computeForces(const float4* pos, int n, Box box, LJParams lj, const int* nlistCount,
                              const int* nlist, int stride, Force* force) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 pi = pos[i];
  force[i].v = 0.f;
  force[i].x = 0.f;
  force[i].y = 0.f;
  force[i].z = 0.f;
  const int neighbors = nlistCount[i];
  for (int k = 0; k < neighbors; ++k) {
    const int j = nlist[k * stride + i];
    const float4 pj = pos[j];
    const float dx = box.minimumImage(pi.x - pj.x);
    const float dy = box.minimumImage(pi.y - pj.y);
    const float dz = box.minimumImage(pi.z - pj.z);
    const float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= lj.rcut2) continue;
    float energy;
    const float fr = lj.forceOverR(r2, energy);
    force[i].v += 0.5f * energy;  // each pair is seen from both atoms
    force[i].x += fr * dx;
    force[i].y += fr * dy;
    force[i].z += fr * dz;
  }
}

// First half of a step: half a kick with the current forces, then a full drift.
__global__ void kickDrift(float4* pos, float4* vel, const Force* force, int n, float dt, Box box) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Force f = force[i];
  float4 v = vel[i];
  const float h = 0.5f * dt / v.w;
  v.x += h * f.x;
  v.y += h * f.y;
  v.z += h * f.z;
  float4 p = pos[i];
  p.x = box.wrap(p.x + dt * v.x);
  p.y = box.wrap(p.y + dt * v.y);
  p.z = box.wrap(p.z + dt * v.z);
  pos[i] = p;
  vel[i] = v;
}

// Second half kick with the new forces; each atom's kinetic energy for the diagnostics.
__global__ void kick(float4* vel, const Force* force, int n, float dt, float* kinetic) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i];
  const float h = 0.5f * dt / v.w;
  v.x += h * force[i].x;
  v.y += h * force[i].y;
  v.z += h * force[i].z;
  vel[i] = v;
  kinetic[i] = 0.5f * v.w * (v.x * v.x + v.y * v.y + v.z * v.z);
}
