// An agent of the SIR model. Fields are private; the kernels and the CPU reference go through
// the same __host__ __device__ methods so the rules exist once.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

enum HealthState : uint8_t { Susceptible = 0, Infected = 1, Recovered = 2 };

#define AGE_GROUPS 4

// Days an infection lasts, by age group.
struct DiseaseParams {
  int infectiousDays[AGE_GROUPS];
  uint32_t betaPerMillion;  // chance per unit of infectivity x susceptibility, in 1e-6 (x 1e-4 units)
  uint32_t seed;
};

class Agent {
 public:
  __host__ __device__ Agent() : state_(Susceptible), ageGroup_(0), daysInState_(0), susceptibility_(0), infectivity_(0) {}
  __host__ __device__ Agent(int ageGroup, int susceptibility, int infectivity, float2 home)
      : state_(Susceptible), ageGroup_((uint8_t)ageGroup), daysInState_(0), susceptibility_((uint16_t)susceptibility),
        infectivity_((uint16_t)infectivity), home_(home) {}

  __host__ __device__ HealthState state() const { return (HealthState)state_; }
  __host__ __device__ bool isInfected() const { return state_ == Infected; }
  __host__ __device__ int ageGroup() const { return ageGroup_; }
  __host__ __device__ int susceptibility() const { return susceptibility_; }
  __host__ __device__ int infectivity() const { return infectivity_; }
  __host__ __device__ float2 home() const { return home_; }
  __host__ __device__ int daysInState() const { return daysInState_; }

  __host__ __device__ void infect() {
    state_ = Infected;
    daysInState_ = 0;
  }
  // One day passes; an infection ends after its age group's duration.
  __host__ __device__ void advanceDay(const DiseaseParams& p) {
    daysInState_++;
    if (state_ == Infected && daysInState_ >= p.infectiousDays[ageGroup_]) {
      state_ = Recovered;
      daysInState_ = 0;
    }
  }

 private:
  uint8_t state_;
  uint8_t ageGroup_;
  uint16_t daysInState_;
  uint16_t susceptibility_;  // 0..100
  uint16_t infectivity_;     // 0..100
  float2 home_;              // km, for the regional incidence map
};

// Contacts of each agent in CSR form: the agents whose infection can reach agent i.
struct ContactGraph {
  int n;
  int* rowStart;  // n + 1
  int* contacts;  // rowStart[n]
};

__host__ __device__ inline uint32_t hashDraw(uint32_t a, uint32_t b, uint32_t seed) {
  uint32_t h = (a ^ 0x61C88647u) * 0x9E3779B1u + (b ^ seed) * 0x85EBCA6Bu;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

// Whether a susceptible agent with this summed infectivity around it is infected today.
__host__ __device__ inline bool catchesInfection(const Agent& a, uint64_t pressure, const DiseaseParams& p,
                                                 uint32_t draw) {
  uint64_t chance = pressure * (uint64_t)a.susceptibility() * p.betaPerMillion;  // out of 1e10 = 2^10 * 9765625
  // draw / 2^32 < chance / 1e10, in integers that cannot overflow.
  return chance >= 10000000000ull || (uint64_t)draw * 9765625ull < (chance << 22);
}

void buildContactGraph(int n, int householdSize, int randomContacts, uint32_t seed, int* rowStart,
                       std::int32_t* contacts);
int contactGraphEdges(int n, int householdSize, int randomContacts);
