#include <cstdio>

#include "bodies.h"

Body* makeSwarm(int n);

int main() {
  const int n = 1000;
  Body* bodies = toDevice(std::vector<Body>(n, Body{0.f, 0.f, 1.f, 1.f}));
  Body* swarm = makeSwarm(n);
  for (int s = 0; s < 10; ++s) {
    stepBodies(bodies, n);
    stepBodies(swarm, n);
  }
  std::printf("%.1f %.1f\n", sumX(bodies, n), sumX(swarm, n));
  return 0;
}
