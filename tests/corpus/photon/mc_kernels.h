// Host interface of the GPU photon transport.
#pragma once

#include <cuda_runtime.h>

#include "tissue.h"

static const int kTallyBlock = 256;

void uploadTissue(const Layer* layers, int count);
// Launches, on `stream`, the photons of one batch stored in photonBuffer (n Photon records), and
// writes 2 + MAX_LAYERS tallies per block of kTallyBlock photons to blockSums.
void runPhotons(void* photonBuffer, int n, unsigned int seed, int maxSteps, double* blockSums, cudaStream_t stream);
