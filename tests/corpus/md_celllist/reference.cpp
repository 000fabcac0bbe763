#include "reference.h"

void referenceForces(std::vector<Atom>& atoms, const Box& box, const MixtureTable& mix, std::vector<float>& potential) {
  const int n = static_cast<int>(atoms.size());
  const int nc = box.cellsPerDim;
  const int ncells = nc * nc * nc;
  std::vector<int> count(ncells, 0), start(ncells, 0), cursor(ncells, 0), cellOfAtom(n), list(n);
  for (int i = 0; i < n; ++i) {
    float3 p = atoms[i].position();
    cellOfAtom[i] = cellIndex(cellCoord(p.x, box), cellCoord(p.y, box), cellCoord(p.z, box), nc);
    ++count[cellOfAtom[i]];
  }
  for (int c = 1; c < ncells; ++c) start[c] = start[c - 1] + count[c - 1];
  for (int i = 0; i < n; ++i) list[start[cellOfAtom[i]] + cursor[cellOfAtom[i]]++] = i;  // index order per cell

  potential.assign(n, 0.f);
  std::vector<float3> forces(n);
  for (int i = 0; i < n; ++i) {
    const float3 pi = atoms[i].position();
    const int ti = atoms[i].type();
    int cx = cellCoord(pi.x, box), cy = cellCoord(pi.y, box), cz = cellCoord(pi.z, box);
    float fx = 0, fy = 0, fz = 0, energy = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int c = cellIndex(cx + dx, cy + dy, cz + dz, nc);
          for (int k = start[c]; k < start[c] + count[c]; ++k) {
            int j = list[k];
            if (j == i) continue;
            float3 pj = atoms[j].position();
            float rx = minimumImage(pi.x - pj.x, box.length);
            float ry = minimumImage(pi.y - pj.y, box.length);
            float rz = minimumImage(pi.z - pj.z, box.length);
            float r2 = rx * rx + ry * ry + rz * rz;
            if (r2 >= mix.cutoff2) continue;
            int tj = atoms[j].type();
            float pairEnergy = 0;
            float f = ljForceOverR<float>(r2, mix.sigma2[ti][tj], mix.epsilon[ti][tj], mix.cutoff2, pairEnergy);
            energy += 0.5f * pairEnergy;
            fx += f * rx;
            fy += f * ry;
            fz += f * rz;
          }
        }
    forces[i] = make_float3(fx, fy, fz);
    potential[i] = energy;
  }
  for (int i = 0; i < n; ++i) atoms[i].setForce(forces[i]);
}

void referenceStep(std::vector<Atom>& atoms, const Box& box, const MixtureTable& mix, float dt,
                   std::vector<float>& potential, std::vector<float>& kinetic) {
  for (Atom& a : atoms) {
    a.kick(0.5f * dt / mix.mass[a.type()]);
    a.drift(dt, box.length);
  }
  referenceForces(atoms, box, mix, potential);
  kinetic.resize(atoms.size());
  for (size_t i = 0; i < atoms.size(); ++i) {
    float m = mix.mass[atoms[i].type()];
    atoms[i].kick(0.5f * dt / m);
    float3 v = atoms[i].velocity();
    kinetic[i] = 0.5f * m * (v.x * v.x + v.y * v.y + v.z * v.z);
  }
}
