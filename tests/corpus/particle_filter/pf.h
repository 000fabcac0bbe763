// Monte Carlo localisation of a robot that measures its distance to known landmarks.
#pragma once
#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define PF_HD __host__ __device__
#else
#define PF_HD
#endif

#define PF_MAX_LANDMARKS 32

struct Particle {
  float x, y;   // position hypothesis
  float theta;  // heading
  float weight;
};

struct Control {
  float speed;  // distance per step
  float turn;   // heading change per step
};

struct NoiseModel {
  float speed, turn;  // motion noise (standard deviations)
  float range;        // range measurement noise
};

// Counter-based random numbers, so the CPU reference draws exactly the same ones.
PF_HD inline uint32_t mix(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352dU;
  v ^= v >> 15;
  v *= 0x846ca68bU;
  v ^= v >> 16;
  return v;
}

PF_HD inline float uniform01(uint32_t stream, uint32_t counter) {
  return (mix(stream * 0x9e3779b9U ^ mix(counter)) >> 8) * (1.0f / 16777216.0f) + (0.5f / 16777216.0f);
}

PF_HD inline float gaussian(uint32_t stream, uint32_t counter) {
  const float u1 = uniform01(stream, 2 * counter), u2 = uniform01(stream, 2 * counter + 1);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
}

PF_HD inline void move(float& x, float& y, float& theta, const Control& u, const NoiseModel& noise, uint32_t id,
                       uint32_t step) {
  const float speed = u.speed + noise.speed * gaussian(id, 2 * step);
  theta += u.turn + noise.turn * gaussian(id, 2 * step + 1);
  x += speed * cosf(theta);
  y += speed * sinf(theta);
}

// Runs the filter on the GPU: one predict/weigh/resample round per measurement set.
void runFilter(Particle* particles, int n, const float2* landmarks, int landmarkCount, const float* ranges,
               const Control* controls, int steps, NoiseModel noise);
