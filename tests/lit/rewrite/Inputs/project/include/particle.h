// Shared by the CUDA code (sim.cu) and host-only code (io.cpp), which g++ compiles on its own.
#ifndef PARTICLE_H
#define PARTICLE_H

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

// Host-only: prints one particle (io.cpp).
void printParticle(Particle p);

#endif
