// A point charge, with the accessors its kernels use.
#pragma once

struct Charge {
  float x, y, q;
  float fx, fy;

  __host__ __device__ float charge() const { return q; }
  __host__ __device__ float px() const { return x; }
  __host__ __device__ float py() const { return y; }
  __host__ __device__ void setForce(float gx, float gy) {
    fx = gx;
    fy = gy;
  }
};
