/* 2D FDTD (TE_z: Ex, Ey, Hz) on a Yee grid, normalised units (c = eps0 = mu0 = 1, dx = dy = 1).
 * Ex(i, j) sits at (i + 1/2, j), Ey(i, j) at (i, j + 1/2), Hz(i, j) at (i + 1/2, j + 1/2). */
#ifndef FDTD_YEE_H
#define FDTD_YEE_H

#include <math.h>

typedef struct {
  float Ex, Ey;  /* electric field */
  float Hz;      /* magnetic field */
  float eps;     /* relative permittivity of the cell */
  float mu;      /* relative permeability of the cell */
} YeeCell;

#define IDX(i, j, nx) ((j) * (nx) + (i))

/* A soft source: a Gaussian-modulated sine added to Hz at one cell. */
typedef struct {
  int i, j;
  float frequency;  /* cycles per unit time */
  float delay, width;
} Source;

#define MAX_PROBES 8

#ifdef __CUDACC__
#define FDTD_HD __host__ __device__
#else
#define FDTD_HD
#endif

FDTD_HD inline float sourceValue(const Source& src, float t) {
  float a = (t - src.delay) / src.width;
  return expf(-a * a) * sinf(6.2831853f * src.frequency * t);
}

void fdtdCpu(YeeCell* grid, int nx, int ny, float dt, int steps, const Source& src, const int* probeI,
             const int* probeJ, int probes, float* series);

#endif
