// CPU sort-and-sweep with the same motion, boxes and tie order.
#include <algorithm>
#include <numeric>
#include <vector>

#include "aabb.h"

std::vector<int2> broadphaseCpu(std::vector<Body>& bodies, const World& w, int frames, std::vector<long long>& perFrame) {
  const int n = (int)bodies.size();
  std::vector<AABB> boxes(n), sorted(n);
  std::vector<int> order(n);
  std::vector<int2> pairs;
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < n; ++i) {
      Body& b = bodies[i];
      bounce(b.pos.x, b.vel.x, w.dt, w.length);
      bounce(b.pos.y, b.vel.y, w.dt, w.width);
      bounce(b.pos.z, b.vel.z, w.dt, w.width);
      float r = b.radius;
      boxes[i] = AABB{make_float3(b.pos.x - r, b.pos.y - r, b.pos.z - r), make_float3(b.pos.x + r, b.pos.y + r, b.pos.z + r), i};
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return boxes[a].min.x < boxes[b].min.x; });
    for (int k = 0; k < n; ++k) sorted[k] = boxes[order[k]];
    pairs.clear();
    for (int k = 0; k < n; ++k) {
      const AABB& a = sorted[k];
      for (int j = k + 1; j < n && sorted[j].min.x <= a.max.x; ++j) {
        const AABB& b = sorted[j];
        if (overlapsYZ(a, b)) pairs.push_back(make_int2(std::min(a.id, b.id), std::max(a.id, b.id)));
      }
    }
    perFrame.push_back((long long)pairs.size());
  }
  return pairs;
}
