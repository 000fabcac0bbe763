// A coarse-grained molecule as smeared multipoles, and the grid its electrostatic potential is mapped on.
#pragma once
#include <cuda_runtime.h>

// One bead of the coarse-grained model: a charge and a dipole at its centre, smeared over its radius.
struct __align__(16) Multipole {
  float3 centre;
  float charge;
  float3 dipole;
  float radius;

  // Potential at p: q / r + d.r / r^3 with r^2 softened by the bead's radius.
  __host__ __device__ float potentialAt(float3 p) const {
    const float dx = p.x - centre.x, dy = p.y - centre.y, dz = p.z - centre.z;
    const float r2 = dx * dx + dy * dy + dz * dz + radius * radius;
    const float inv = rsqrtf(r2);
    return charge * inv + (dipole.x * dx + dipole.y * dy + dipole.z * dz) * inv * inv * inv;
  }
};
static_assert(sizeof(Multipole) == 32, "two vector loads per bead");

// A rotation about the z axis followed by a shift: the molecule tumbling through the frames.
struct Pose {
  float cosA, sinA;
  float3 shift;

  __host__ __device__ float3 rotate(float3 v) const {
    return make_float3(cosA * v.x - sinA * v.y, sinA * v.x + cosA * v.y, v.z);
  }
  __host__ __device__ Multipole apply(const Multipole& m) const {
    Multipole out = m;
    const float3 c = rotate(m.centre);
    out.centre = make_float3(c.x + shift.x, c.y + shift.y, c.z + shift.z);
    out.dipole = rotate(m.dipole);
    return out;
  }
};

// A regular grid of nx * ny * nz points from origin, spacing apart, x fastest.
struct GridSpec {
  int nx, ny, nz;
  float3 origin;
  float spacing;

  __host__ __device__ float3 point(int ix, int iy, int iz) const {
    return make_float3(origin.x + ix * spacing, origin.y + iy * spacing, origin.z + iz * spacing);
  }
  __host__ __device__ size_t index(int ix, int iy, int iz) const { return (size_t(iz) * ny + iy) * nx + ix; }
  size_t points() const { return size_t(nx) * ny * nz; }
};

// Poses the rest model into `posed`, then maps its potential on the grid (device arrays).
void poseModel(const Multipole* rest, Multipole* posed, int count, const Pose& pose);
void mapPotential(const Multipole* beads, int count, const GridSpec& grid, float* potential);
