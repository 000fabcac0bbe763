// 2D shallow-water equations, finite volumes with the Rusanov (local Lax-Friedrichs) flux.
#pragma once

#include <math.h>

#ifdef __CUDACC__
#define SWE_HD __host__ __device__
#else
#define SWE_HD
#endif

// Conserved variables of a cell (and, with the same struct, the flux through a face).
struct Cell {
  float h;   // water depth
  float hu;  // x momentum
  float hv;  // y momentum
};

// A tide gauge at a fixed cell: highest water seen and first time above the alarm level.
struct Gauge {
  int i, j;
  float maxH;
  float arrival;  // < 0: not reached yet
};

static const float kGravity = 9.81f;
static const float kAlarmDepth = 1.05f;

struct Domain {
  int nx, ny;  // interior cells; the arrays have a ghost ring: (nx + 2) x (ny + 2)
  float dx, dy;
  SWE_HD int index(int i, int j) const { return j * (nx + 2) + i; }  // i, j in 0 .. n + 1
};

// Flux of the conserved variables along x (Axis 0) or y (Axis 1).
template <int Axis>
SWE_HD inline Cell physicalFlux(const Cell& q) {
  float h = fmaxf(q.h, 1e-6f);
  float u = q.hu / h, v = q.hv / h;
  Cell f;
  if (Axis == 0) {
    f.h = q.hu;
    f.hu = q.hu * u + 0.5f * kGravity * h * h;
    f.hv = q.hv * u;
  } else {
    f.h = q.hv;
    f.hu = q.hu * v;
    f.hv = q.hv * v + 0.5f * kGravity * h * h;
  }
  return f;
}

template <int Axis>
SWE_HD inline float waveSpeed(const Cell& q) {
  float h = fmaxf(q.h, 1e-6f);
  float normalVelocity = (Axis == 0 ? q.hu : q.hv) / h;
  return fabsf(normalVelocity) + sqrtf(kGravity * h);
}

template <int Axis>
SWE_HD inline Cell rusanovFlux(const Cell& left, const Cell& right) {
  Cell fl = physicalFlux<Axis>(left), fr = physicalFlux<Axis>(right);
  float a = fmaxf(waveSpeed<Axis>(left), waveSpeed<Axis>(right));
  Cell f;
  f.h = 0.5f * (fl.h + fr.h) - 0.5f * a * (right.h - left.h);
  f.hu = 0.5f * (fl.hu + fr.hu) - 0.5f * a * (right.hu - left.hu);
  f.hv = 0.5f * (fl.hv + fr.hv) - 0.5f * a * (right.hv - left.hv);
  return f;
}

void stepCpu(const Domain& d, Cell* cells, Cell* next, Cell* fx, Cell* fy, float dt);
void reflectCpu(const Domain& d, Cell* cells);
