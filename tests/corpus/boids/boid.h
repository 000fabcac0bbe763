// A boid: position, velocity and the flock it belongs to. Shared by the device code and the CPU reference.
#pragma once
#include <cuda_runtime.h>

#ifdef __CUDACC__
#define BOIDS_HD __host__ __device__
#else
#define BOIDS_HD
#endif

BOIDS_HD inline float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
BOIDS_HD inline float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
BOIDS_HD inline float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
BOIDS_HD inline float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

class Boid {
 public:
  BOIDS_HD Boid() : pos_(make_float3(0, 0, 0)), vel_(make_float3(0, 0, 0)), flock_(0) {}
  BOIDS_HD Boid(float3 p, float3 v, int flock) : pos_(p), vel_(v), flock_(flock) {}

  BOIDS_HD float3 position() const { return pos_; }
  BOIDS_HD float3 velocity() const { return vel_; }
  BOIDS_HD int flock() const { return flock_; }
  BOIDS_HD void setVelocity(float3 v) { vel_ = v; }

  // Moves by one step in a periodic box [0, box)^3.
  BOIDS_HD void advance(float dt, float box) {
    pos_ = pos_ + dt * vel_;
    pos_.x -= box * floorf(pos_.x / box);
    pos_.y -= box * floorf(pos_.y / box);
    pos_.z -= box * floorf(pos_.z / box);
  }

 private:
  float3 pos_;
  float3 vel_;
  int flock_;
};

struct FlockRules {
  float radius;      // neighbourhood radius, also the grid cell size
  float separation;  // weights of the three rules
  float alignment;
  float cohesion;
  float maxSpeed;
  float dt;
  float box;
  int cellsPerSide;
};

// The cell of a position, clamped into the grid (positions are kept inside the box).
BOIDS_HD inline int cellIndex(float3 p, const FlockRules& r) {
  int cx = min(max(int(p.x / r.radius), 0), r.cellsPerSide - 1);
  int cy = min(max(int(p.y / r.radius), 0), r.cellsPerSide - 1);
  int cz = min(max(int(p.z / r.radius), 0), r.cellsPerSide - 1);
  return (cz * r.cellsPerSide + cy) * r.cellsPerSide + cx;
}

// Steering from the neighbours' sums; the same arithmetic on both sides.
BOIDS_HD inline float3 steer(float3 vel, float3 away, float3 velSum, float3 centreSum, float3 pos, int count,
                             const FlockRules& r) {
  float3 v = vel + r.separation * away;
  if (count > 0) {
    const float inv = 1.0f / count;
    v = v + r.alignment * (inv * velSum - vel);
    v = v + r.cohesion * (inv * centreSum - pos);
  }
  const float speed = sqrtf(dot(v, v));
  if (speed > r.maxSpeed) v = (r.maxSpeed / speed) * v;
  return v;
}
