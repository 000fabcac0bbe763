// D2Q9 lattice Boltzmann (BGK) for a lid-driven cavity.
#pragma once

#if !defined(__NVCC__) && !defined(__CUDACC__) && !defined(__host__)
#define __host__
#define __device__
#endif

enum CellType { FLUID = 0, WALL = 1, LID = 2 };

typedef struct {
  float f[9];  // populations, in the order of the velocity table
  float rho;   // density and velocity of the last collision
  float ux;
  float uy;
  int flags;  // CellType
} Cell;

// The D2Q9 velocity set: rest, four axes, four diagonals.
static const int kEx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int kEy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const float kWeight[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
static const int kOpposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

struct LbmParams {
  int nx, ny;
  float omega;  // 1 / relaxation time
  float lidSpeed;
};

__host__ __device__ inline float equilibrium(float w, int ex, int ey, float rho, float ux, float uy) {
  const float eu = ex * ux + ey * uy;
  const float uu = ux * ux + uy * uy;
  return w * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * uu);
}

void initCavity(Cell* cells, const LbmParams& p);
// Runs `steps` collide-and-stream steps on the GPU from `cells` and writes the result back into it.
void runLbm(Cell* cells, const LbmParams& p, int steps);
