// Host code over arrays in the new layout, run on the CPU (split-run.test): managed and pinned
// arrays are rewritten on the host too, so the original and the rewritten program, compiled as
// plain C++ with cuda-on-cpu.h, must print the same cells. Two split array fields and one kept per
// element (memcpy takes it whole), copied whole and in slices between blocks of three strides.
#include <stdio.h>
#include <string.h>
#include <vector>

struct Cell {
  float area;
  int neighbor[4];
  float normal[4][3];
  short tag[2];
};

__host__ __device__ float flux(const Cell* c, int i) {
  float sum = c[i].area;
  for (int j = 0; j < 4; ++j) {
    const int nb = c[i].neighbor[j];
    if (nb >= 0) sum += c[i].normal[j][0] * c[nb].area + c[i].normal[j][j % 3] - c[nb].normal[3 - j][2];
  }
  return sum + c->neighbor[1] + c[0].normal[1][2] + c[i].tag[1];
}

static void print(const std::vector<Cell>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    const Cell& c = cells[i];
    printf("%zu: %g | %d %d %d %d |", i, c.area, c.neighbor[0], c.neighbor[1], c.neighbor[2], c.neighbor[3]);
    for (int j = 0; j < 4; ++j) printf(" %g %g %g", c.normal[j][0], c.normal[j][1], c.normal[j][2]);
    printf(" | %d %d\n", c.tag[0], c.tag[1]);
  }
}

int main() {
  const int n = 10, half = 4, room = n + 3;
  std::vector<Cell> h(n);
  for (int i = 0; i < n; ++i) {
    h[i].area = 1.0f + i;
    for (int j = 0; j < 4; ++j) {
      h[i].neighbor[j] = (i + j) % 3 == 0 ? -1 : (3 * i + j) % n;
      for (int k = 0; k < 3; ++k) h[i].normal[j][k] = i + 0.1f * j + 0.01f * k;
    }
    h[i].tag[0] = short(7 * i), h[i].tag[1] = short(-i);
  }
  Cell* d;  // room for more cells than are copied: a stride other than n
  cudaMalloc(&d, room * sizeof(Cell));
  cudaMemcpy(d, h.data(), half * sizeof(Cell), cudaMemcpyHostToDevice);
  cudaMemcpy(d + half, h.data() + half, (n - half) * sizeof(Cell), cudaMemcpyHostToDevice);
  Cell* m;
  cudaMallocManaged(&m, n * sizeof(Cell));
  cudaMemcpy(m, d, n * sizeof(Cell), cudaMemcpyDeviceToDevice);
  for (int i = 0; i < n; ++i) {
    m[i].neighbor[i % 4] = (m[i].neighbor[i % 4] + 2) % n;
    m[i].normal[i % 4][i % 3] *= 2.0f;
    m[i].normal[3][2] += m[i].area;
    ++m[i].neighbor[0];
    m[i].neighbor[0] %= n;
  }
  m->normal[0][1] = -1.0f;
  const short tag[2] = {11, 12};
  memcpy(m[2].tag, tag, sizeof(tag));
  for (int i = 0; i < n; ++i) printf("flux %d: %g\n", i, flux(m, i));
  const Cell first = m[1];
  m[n - 1] = first;
  Cell* pinned;
  cudaMallocHost(&pinned, n * sizeof(Cell));
  cudaMemcpyAsync(pinned, m, n * sizeof(Cell), cudaMemcpyDefault, 0);
  cudaMemset(pinned + 3, 0, 2 * sizeof(Cell));
  pinned[5].normal[2][1] = -3.5f;
  pinned[6].neighbor[3] = pinned[7].neighbor[2];
  cudaMemcpy(d + 1, pinned + 1, (n - 1) * sizeof(Cell), cudaMemcpyHostToDevice);
  std::vector<Cell> back(n);
  cudaMemcpy(back.data(), d, half * sizeof(Cell), cudaMemcpyDeviceToHost);
  cudaMemcpy(back.data() + half, d + half, (n - half) * sizeof(Cell), cudaMemcpyDeviceToHost);
  print(back);
  cudaFree(d);
  cudaFree(m);
  cudaFreeHost(pinned);
  return 0;
}
