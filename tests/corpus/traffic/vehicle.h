// Vehicle records and the road they drive on (Nagel-Schreckenberg cellular automaton).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif

struct Vehicle {
  int lane;      // 0 .. lanes-1
  int pos;       // cell along the ring road
  int speed;     // cells per step
  int maxSpeed;  // cars and trucks differ
};

struct RoadParams {
  int lanes;
  int length;          // cells per lane (the road is a ring)
  uint32_t slowdown;   // probability of a random slowdown, out of 2^16
  uint32_t seed;
};

static const int kEmpty = -1;
static const int kMaxSpeedCap = 8;

// Counter-based random numbers so that the CPU reference sees the same draws as the GPU.
HD inline uint32_t mixHash(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}

HD inline int cellIndex(const RoadParams& road, int lane, int pos) { return lane * road.length + pos; }

// Free cells ahead of `pos` in `lane`, looking at most `horizon` cells.
HD inline int gapAhead(const int* grid, const RoadParams& road, int lane, int pos, int horizon) {
  for (int d = 1; d <= horizon; ++d) {
    int p = pos + d;
    if (p >= road.length) p -= road.length;
    if (grid[cellIndex(road, lane, p)] != kEmpty) return d - 1;
  }
  return horizon;
}

// Free cells behind `pos` in `lane` (a follower must not have to brake hard after a lane change).
HD inline int gapBehind(const int* grid, const RoadParams& road, int lane, int pos, int horizon) {
  for (int d = 1; d <= horizon; ++d) {
    int p = pos - d;
    if (p < 0) p += road.length;
    if (grid[cellIndex(road, lane, p)] != kEmpty) return d - 1;
  }
  return horizon;
}

void simulateCpu(Vehicle* cars, int n, const RoadParams& road, int steps, long long* flowPerStep);
