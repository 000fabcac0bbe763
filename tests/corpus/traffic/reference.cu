// The same model on the CPU, vehicle by vehicle, in the order the GPU's rules imply.
#include <algorithm>
#include <vector>

#include "vehicle.h"

void simulateCpu(Vehicle* cars, int n, const RoadParams& road, int steps, long long* flowPerStep) {
  const int cells = road.lanes * road.length;
  std::vector<int> grid(cells), claims(cells), wanted(n);
  auto mark = [&]() {
    std::fill(grid.begin(), grid.end(), kEmpty);
    for (int i = 0; i < n; ++i) grid[cellIndex(road, cars[i].lane, cars[i].pos)] = i;
  };
  for (int step = 0; step < steps; ++step) {
    mark();
    std::fill(claims.begin(), claims.end(), n);
    for (int i = 0; i < n; ++i) {
      const Vehicle& v = cars[i];
      wanted[i] = -1;
      int target = v.lane + ((step & 1) ? 1 : -1);
      if (target < 0 || target >= road.lanes) continue;
      int horizon = v.speed + 1;
      int own = gapAhead(grid.data(), road, v.lane, v.pos, horizon);
      if (own >= horizon) continue;
      if (grid[cellIndex(road, target, v.pos)] != kEmpty) continue;
      int other = gapAhead(grid.data(), road, target, v.pos, horizon);
      if (other <= own) continue;
      if (gapBehind(grid.data(), road, target, v.pos, kMaxSpeedCap) < kMaxSpeedCap) continue;
      wanted[i] = target;
      int& claim = claims[cellIndex(road, target, v.pos)];
      claim = std::min(claim, i);
    }
    for (int i = 0; i < n; ++i)
      if (wanted[i] >= 0 && claims[cellIndex(road, wanted[i], cars[i].pos)] == i) cars[i].lane = wanted[i];
    mark();
    long long flow = 0;
    for (int i = 0; i < n; ++i) {
      Vehicle& v = cars[i];
      int gap = gapAhead(grid.data(), road, v.lane, v.pos, v.maxSpeed);
      int s = std::min(std::min(v.speed + 1, v.maxSpeed), gap);
      if (s > 0 && (mixHash(i, step, road.seed) & 0xFFFFu) < road.slowdown) s -= 1;
      v.speed = s;
      v.pos = (v.pos + s) % road.length;
      flow += s;
    }
    flowPerStep[step] = flow;
  }
}
