// Force evaluation over the cell list and the velocity-Verlet integration.
#pragma once
#include "cell_list.cuh"

__constant__ MixtureTable c_mixture;

// Forces on each atom from the atoms of its own and the 26 neighbouring cells.
template <typename Real>
__global__ void computeForces(Atom* atoms, int n, Box box, const int* cellStart, const int* cellCount,
                              const int* cellAtoms, float* potential) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Atom& self = atoms[i];
  const float3 pi = self.position();
  const int ti = self.type();
  const int nc = box.cellsPerDim;
  int cx = cellCoord(pi.x, box), cy = cellCoord(pi.y, box), cz = cellCoord(pi.z, box);
  Real fx = 0, fy = 0, fz = 0, energy = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int c = cellIndex(cx + dx, cy + dy, cz + dz, nc);
        int begin = cellStart[c], end = begin + cellCount[c];
        for (int k = begin; k < end; ++k) {
          int j = cellAtoms[k];
          if (j == i) continue;
          const Atom& other = atoms[j];
          float3 pj = other.position();
          Real rx = minimumImage(pi.x - pj.x, box.length);
          Real ry = minimumImage(pi.y - pj.y, box.length);
          Real rz = minimumImage(pi.z - pj.z, box.length);
          Real r2 = rx * rx + ry * ry + rz * rz;
          if (r2 >= c_mixture.cutoff2) continue;
          int tj = other.type();
          Real pairEnergy = 0;
          Real f = ljForceOverR<Real>(r2, c_mixture.sigma2[ti][tj], c_mixture.epsilon[ti][tj], c_mixture.cutoff2,
                                      pairEnergy);
          energy += Real(0.5) * pairEnergy;  // each pair is visited from both ends
          fx += f * rx;
          fy += f * ry;
          fz += f * rz;
        }
      }
  self.setForce(make_float3(static_cast<float>(fx), static_cast<float>(fy), static_cast<float>(fz)));
  potential[i] = static_cast<float>(energy);
}

// First half of a step: half kick, then drift.
__global__ void kickDrift(Atom* atoms, int n, float dt, float boxLength) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Atom* a = atoms + i;
  a->kick(0.5f * dt / c_mixture.mass[a->type()]);
  a->drift(dt, boxLength);
}

// Second half kick, and each atom's kinetic energy for the diagnostics.
__global__ void kick(Atom* atoms, int n, float dt, float* kinetic) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float m = c_mixture.mass[atoms[i].type()];
  atoms[i].kick(0.5f * dt / m);
  float3 v = atoms[i].velocity();
  kinetic[i] = 0.5f * m * (v.x * v.x + v.y * v.y + v.z * v.z);
}
