// float3 arithmetic for host and device code.
#pragma once
#include <cuda_runtime.h>

#include <cmath>

#define HD __host__ __device__

HD inline float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
HD inline float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
HD inline float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
HD inline float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
HD inline float3& operator+=(float3& a, float3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
HD inline float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
HD inline float3 normalize(float3 a) { return (1.0f / sqrtf(dot(a, a))) * a; }
HD inline float3 reflect(float3 d, float3 n) { return d - (2.0f * dot(d, n)) * n; }
HD inline float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
