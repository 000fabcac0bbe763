// An atom of a binary Lennard-Jones mixture, usable on the host and on the device.
#pragma once
#include <cuda_runtime.h>

#ifdef __CUDACC__
#define MD_HD __host__ __device__
#else
#define MD_HD
#endif

class Atom {
 public:
  MD_HD Atom()
      : pos_(make_float3(0.f, 0.f, 0.f)),
        vel_(make_float3(0.f, 0.f, 0.f)),
        force_(make_float3(0.f, 0.f, 0.f)),
        type_(0) {}
  MD_HD Atom(float3 pos, float3 vel, int type)
      : pos_(pos), vel_(vel), force_(make_float3(0.f, 0.f, 0.f)), type_(type) {}

  MD_HD float3 position() const { return pos_; }
  MD_HD float3 velocity() const { return vel_; }
  MD_HD float3 force() const { return force_; }
  MD_HD int type() const { return type_; }

  MD_HD void setPosition(const float3& p) { pos_ = p; }
  MD_HD void setForce(const float3& f) { force_ = f; }

  // Half a velocity-Verlet kick: v += dt/2 * f/m.
  MD_HD void kick(float halfDtOverMass) {
    vel_.x += halfDtOverMass * force_.x;
    vel_.y += halfDtOverMass * force_.y;
    vel_.z += halfDtOverMass * force_.z;
  }

  // Move by dt and wrap into the periodic box [0, box)^3.
  MD_HD void drift(float dt, float box) {
    pos_.x = wrap(pos_.x + dt * vel_.x, box);
    pos_.y = wrap(pos_.y + dt * vel_.y, box);
    pos_.z = wrap(pos_.z + dt * vel_.z, box);
  }

 private:
  MD_HD static float wrap(float x, float box) {
    if (x >= box) x -= box;
    if (x < 0.f) x += box;
    return x >= box ? 0.f : x;
  }

  float3 pos_;
  float3 vel_;
  float3 force_;
  int type_;
};
