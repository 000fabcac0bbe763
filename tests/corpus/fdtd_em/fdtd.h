// GPU entry point of the solver.
#pragma once

#include "yee.h"

// Steps hostGrid on the GPU and copies it back; series[step * probes + p] is probe p's Hz after
// each step, energy the field energy at the end. Returns 0, or -1 on a CUDA error.
int runFdtdGpu(YeeCell* hostGrid, int nx, int ny, float dt, int steps, const Source& src, const int* probeI,
               const int* probeJ, int probes, float* series, double* energy);
