// Mass-spring cloth: particles joined by structural, shear and bending springs.
#pragma once
#include <cuda_runtime.h>
#include <vector>

__host__ __device__ inline float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__host__ __device__ inline float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__host__ __device__ inline float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
__host__ __device__ inline float length(float3 a) { return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z); }

class Particle {
 public:
  float3 pos;
  float3 vel;
  float3 force;
  float invMass;  // 0 for particles pinned in place

  __host__ __device__ Particle() : pos(), vel(), force(), invMass(0) {}
  __host__ __device__ Particle(float3 p, float inverseMass)
      : pos(p), vel(make_float3(0, 0, 0)), force(make_float3(0, 0, 0)), invMass(inverseMass) {}
  __host__ __device__ bool pinned() const { return invMass == 0.0f; }
};

struct Spring {
  int a, b;    // the particles it joins
  float rest;  // rest length
  float k;     // stiffness
};

// Linear (Hooke) springs with a damping term along the spring.
struct HookeModel {
  float damping;
  __host__ __device__ float3 operator()(const Particle& p, const Particle& q, const Spring& s) const {
    const float3 d = q.pos - p.pos;
    const float len = length(d);
    if (len < 1e-9f) return make_float3(0, 0, 0);
    const float3 dir = (1.0f / len) * d;
    const float3 dv = q.vel - p.vel;
    const float along = dv.x * dir.x + dv.y * dir.y + dv.z * dir.z;
    return (s.k * (len - s.rest) + damping * along) * dir;
  }
};

struct ClothParams {
  float dt;
  float gravity;
  float drag;         // velocity kept per step
  float3 ballCentre;  // a fixed ball the cloth falls onto
  float ballRadius;
};

// The cloth, with each particle's springs listed in compressed rows (adjStart/adjSpring).
struct ClothMesh {
  int width, height;
  std::vector<Particle> particles;
  std::vector<Spring> springs;
  std::vector<int> adjStart, adjSpring;
};

ClothMesh buildCloth(int width, int height, float spacing);
// Runs `steps` steps on the GPU and returns the particles, and the springs' elastic energy at the end.
std::vector<Particle> simulateOnGpu(const ClothMesh& mesh, const ClothParams& params, int steps, double* energy);
