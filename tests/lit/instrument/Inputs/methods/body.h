// A class with private fields and accessors, shared by two units.
#pragma once

struct Vec {
  float x, y;
};

class Body {
 public:
  __host__ __device__ Body() : pos{}, vel{}, mass(1.0f) {}
  __host__ __device__ explicit Body(float m) : pos{}, vel{}, mass(m) {}

  __device__ float angle() const { return atan2f(vel.y, this->vel.x); }
  __device__ float getMass() const { return mass; }
  __device__ void setResult(float a, float b, float m) {
    pos.x = a;
    this->pos.y = b;
    mass = m;
  }
  __device__ Body& operator+=(const Vec& d) {
    pos.x += d.x;
    pos.y += d.y;
    return *this;
  }
  // Calls on `this` count where the outer call is on an element.
  __device__ float energy() const { return 0.5f * getMass() * speed2(); }
  __device__ float speed2() const { return vel.x * vel.x + vel.y * vel.y; }
  // `*this` copied whole: one site per field on the element's address.
  __device__ Body halved() const {
    Body h = *this;
    h.mass *= 0.5f;
    return h;
  }
  // Called on a local object and in host code only: not hooked.
  __host__ __device__ float scaled(float s) const { return mass * s; }
  // Defined in methods_second.cu only: a call in another unit cannot be counted.
  __device__ float remote() const;

 private:
  Vec pos, vel;
  float mass;
};
