// What ConstTracerSoA forbids: a store into the arrays of a read-only view.
#include "tracers.cuh"

__global__ void scribble(ConstTracerSoA tracers) { tracers.age[0] = 0.0f; }
