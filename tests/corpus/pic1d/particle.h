// Particle records and the simulation parameters shared by host and device code.
#pragma once

#ifdef __CUDACC__
#define PIC_HD __host__ __device__
#else
#define PIC_HD
#endif

// One macro-particle: position, velocity, charge and mass (all in normalized units).
struct Particle {
  float x;
  float v;
  float q;
  float m;
};

struct SimParams {
  int ncells;      // grid nodes (periodic)
  float length;    // domain length
  float dx;        // cell width
  float dt;        // time step
  double rhoBack;  // neutralizing background charge density
};

// Charge is accumulated in 64-bit fixed point so that the deposit does not depend on the order
// in which threads add their share: integer addition is associative.
constexpr double kChargeScale = 1099511627776.0;  // 2^40

PIC_HD inline int cellOf(float x, float dx, int ncells) {
  int c = static_cast<int>(x / dx);
  return c < 0 ? 0 : (c >= ncells ? ncells - 1 : c);
}

PIC_HD inline float wrapPosition(float x, float length) {
  if (x >= length) x -= length;
  if (x < 0.0f) x += length;
  // x + length can round up to exactly length for a tiny negative x.
  return x >= length ? 0.0f : x;
}
