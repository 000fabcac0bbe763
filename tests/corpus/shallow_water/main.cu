// Dam break in a walled basin: two raised water columns collapse and their waves reach gauges.
// Usage: shallow_water [cells per side] [steps]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "swe.h"
#include "swe_kernels.cuh"

#define CU(call)                                                                      \
  do {                                                                                \
    cudaError_t status = (call);                                                      \
    if (status != cudaSuccess) {                                                      \
      fprintf(stderr, "shallow_water: %s: %s\n", #call, cudaGetErrorString(status)); \
      return 2;                                                                       \
    }                                                                                 \
  } while (0)

static const int kGauges = 6;

static void initialState(const Domain& d, std::vector<Cell>& cells) {
  cells.assign((size_t)(d.nx + 2) * (d.ny + 2), Cell{1.0f, 0.0f, 0.0f});
  for (int j = 1; j <= d.ny; ++j)
    for (int i = 1; i <= d.nx; ++i) {
      float x = (i - 0.5f) * d.dx, y = (j - 0.5f) * d.dy;  // basin is 1 x 1
      float r1 = hypotf(x - 0.35f, y - 0.4f), r2 = hypotf(x - 0.7f, y - 0.65f);
      if (r1 < 0.12f) cells[d.index(i, j)].h = 2.0f;
      if (r2 < 0.08f) cells[d.index(i, j)].h = 1.6f;
    }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int steps = argc > 2 ? atoi(argv[2]) : 80;
  if (n < 16 || steps < 1) {
    fprintf(stderr, "usage: %s [cells per side >= 16] [steps >= 1]\n", argv[0]);
    return 2;
  }
  Domain d{n, n, 1.0f / n, 1.0f / n};
  std::vector<Cell> initial;
  initialState(d, initial);
  // A fixed time step from the CFL limit of the initial state, with margin for the waves' growth.
  float maxSpeed = 0.0f;
  for (const Cell& c : initial) maxSpeed = std::max(maxSpeed, std::max(waveSpeed<0>(c), waveSpeed<1>(c)));
  const float dt = 0.25f * std::min(d.dx, d.dy) / maxSpeed;

  Gauge hostGauges[kGauges] = {{n / 2, n / 2, 0, -1},     {n / 8, n / 8, 0, -1},     {7 * n / 8, n / 8, 0, -1},
                               {n / 8, 7 * n / 8, 0, -1}, {7 * n / 8, 7 * n / 8, 0, -1}, {n / 3, 2 * n / 3, 0, -1}};
  Gauge* gauges;  // managed: the host reads the records after the run without a copy
  CU(cudaMallocManaged(&gauges, sizeof(hostGauges)));
  std::copy(hostGauges, hostGauges + kGauges, gauges);

  const size_t count = initial.size();
  Cell *cells, *next, *fx, *fy;
  CU(cudaMalloc(&cells, count * sizeof(Cell)));
  CU(cudaMalloc(&next, count * sizeof(Cell)));
  CU(cudaMalloc(&fx, count * sizeof(Cell)));
  CU(cudaMalloc(&fy, count * sizeof(Cell)));
  CU(cudaMemcpy(cells, initial.data(), count * sizeof(Cell), cudaMemcpyHostToDevice));
  CU(cudaMemcpy(next, initial.data(), count * sizeof(Cell), cudaMemcpyHostToDevice));

  dim3 block(16, 16), grid((n + 1 + 15) / 16, (n + 1 + 15) / 16);
  dim3 interior((n + 15) / 16, (n + 15) / 16);
  const int wallBlocks = (n + 255) / 256;
  for (int s = 0; s < steps; ++s) {
    reflectBoundaries<<<wallBlocks, 256>>>(d, cells);
    faceFluxesX<<<grid, block>>>(d, cells, fx);
    faceFluxesY<<<grid, block>>>(d, cells, fy);
    updateCells<<<interior, block>>>(d, cells, fx, fy, dt, next);
    std::swap(cells, next);
    recordGauges<<<1, 32>>>(d, cells, gauges, kGauges, (s + 1) * dt);
  }
  double* d_volume;
  CU(cudaMalloc(&d_volume, interior.x * interior.y * sizeof(double)));
  blockVolume<<<interior, block>>>(d, cells, d_volume);
  CU(cudaGetLastError());
  CU(cudaDeviceSynchronize());
  std::vector<Cell> gpu(count);
  std::vector<double> volumes(interior.x * interior.y);
  CU(cudaMemcpy(gpu.data(), cells, count * sizeof(Cell), cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(volumes.data(), d_volume, volumes.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double gpuVolume = 0;
  for (double v : volumes) gpuVolume += v;

  // CPU reference, with the gauges recorded the same way.
  std::vector<Cell> cpu = initial, cpuNext = initial, cfx(count), cfy(count);
  Gauge cpuGauges[kGauges];
  std::copy(hostGauges, hostGauges + kGauges, cpuGauges);
  for (int s = 0; s < steps; ++s) {
    reflectCpu(d, cpu.data());
    stepCpu(d, cpu.data(), cpuNext.data(), cfx.data(), cfy.data(), dt);
    std::swap(cpu, cpuNext);
    for (Gauge& g : cpuGauges) {
      float h = cpu[d.index(g.i, g.j)].h;
      g.maxH = std::max(g.maxH, h);
      if (g.arrival < 0.0f && h > kAlarmDepth) g.arrival = (s + 1) * dt;
    }
  }
  double cpuVolume = 0, worst = 0;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) {
      const Cell &a = gpu[d.index(i, j)], &b = cpu[d.index(i, j)];
      cpuVolume += b.h;
      worst = std::max(worst, (double)std::max(fabsf(a.h - b.h), std::max(fabsf(a.hu - b.hu), fabsf(a.hv - b.hv))));
    }
  // Contracted multiply-adds on the GPU: states within 1e-3, gauge maxima within 1e-3, arrivals
  // within one step, volume within 1e-6 relative (the scheme conserves it).
  const double tolerance = 1e-3;
  bool passed = worst <= tolerance && fabs(gpuVolume - cpuVolume) <= 1e-6 * cpuVolume;
  printf("grid %dx%d, %d steps of %.6f s, water volume %.6f (CPU %.6f)\n", n, n, steps, dt, gpuVolume * d.dx * d.dy,
         cpuVolume * d.dx * d.dy);
  for (int g = 0; g < kGauges; ++g) {
    printf("gauge %d at (%d, %d): max depth %.4f, arrival %.4f s\n", g, gauges[g].i, gauges[g].j, gauges[g].maxH,
           gauges[g].arrival);
    passed = passed && fabsf(gauges[g].maxH - cpuGauges[g].maxH) <= tolerance &&
             fabsf(gauges[g].arrival - cpuGauges[g].arrival) <= 1.5f * dt;
  }
  printf("largest state difference from the CPU %.3e\n", worst);
  printf("%s (states and gauges within %.0e of the CPU's, volume within 1e-6 relative)\n",
         passed ? "CHECK PASSED" : "CHECK FAILED", tolerance);

  cudaFree(d_volume);
  cudaFree(fy);
  cudaFree(fx);
  cudaFree(next);
  cudaFree(cells);
  cudaFree(gauges);
  return passed ? 0 : 1;
}
