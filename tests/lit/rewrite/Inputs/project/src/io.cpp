// Host-only code: no CUDA anywhere, a Particle by value.
#include <cstdio>

#include "particle.h"

void printParticle(Particle p) { std::printf("%g %g %g\n", p.x, p.y, p.z); }
