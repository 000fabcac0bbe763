// A 3-vector from the CPU version of the code: its constructors were never marked __device__.
#pragma once

struct Vec3 {
  float x, y, z;
  Vec3() = default;
  Vec3(float a, float b, float c) : x(a), y(b), z(c) {}
};

__host__ __device__ inline float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
