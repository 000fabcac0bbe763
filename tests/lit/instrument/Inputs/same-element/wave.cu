// A 1-D complex wave update: each accumulation reads re and im of the same neighbours, some in
// separate statements, some only on a branch or after an early exit.
#include <cuda_runtime.h>

struct Complex {
  double re, im;
};

struct Cell {
  float u, v;
  int flags;
};

#define AT(p, i) (p)[(i)]
#define U_OF(p, i) (p)[(i)].u

__global__ void wave(const Complex* psi, Complex* out, const int* left, int n) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  double re = 0, im = 0;
  for (int s = 1; s <= 4; ++s) {
    const int xp = (g + s) % n, xm = left[(g + n - s) % n];
    re += psi[xp].re + psi[xm].re;
    im += psi[xp].im + psi[ xm ].im;
    if (s == 4) re -= psi[xp].im;
  }
  out[g].re = re;
  out[g].im = im;
}

__device__ float relax(Cell* cells, int i) {
  Cell* c = &cells[i];
  if (c->flags == 0) return 0.0f;
  const float sum = c->u + c->v;
  return sum + AT(cells, i).u + U_OF(cells, i + 1);
}

__global__ void smooth(Cell* cells, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cells[i].u = relax(cells, i) > 0 ? cells[i].v : cells[i].u;
}

__global__ void clear(Cell* cells, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cells[i /* la cellule considérée */].v = 0.0f;
}
