#pragma once
#include "mesh.h"

// Runs `steps` explicit steps on the GPU, leaves the temperatures in mesh.cells, returns the heat content.
double solveOnGpu(Mesh& mesh, float dt, int steps, float hotWall, float coldWall);
