// Two kinds of bodies: tracers carry only what advection needs; massive bodies also their mass,
// stored first because the force pass reads it most.
#pragma once

struct Tracer {
  float x, y;
  float vx, vy;
};

struct Massive {
  float mass;
  float x, y;
  float vx, vy;
};
