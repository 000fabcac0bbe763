// Multi-lane ring-road traffic (Nagel-Schreckenberg with lane changes).
// Usage: traffic [vehicles] [steps]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>

#include "traffic_kernels.cuh"
#include "vehicle.h"

#define CUDA_CHECK(call)                                                                            \
  do {                                                                                              \
    cudaError_t err_ = (call);                                                                      \
    if (err_ != cudaSuccess) {                                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));      \
      exit(2);                                                                                      \
    }                                                                                               \
  } while (0)

static void placeVehicles(Vehicle* cars, int n, const RoadParams& road) {
  // One vehicle every five cells of each lane, jittered; one in six is a truck.
  for (int i = 0; i < n; ++i) {
    uint32_t r = mixHash(i, 0xABCDu, road.seed);
    cars[i].lane = i % road.lanes;
    cars[i].pos = (i / road.lanes) * 5 + (int)(r % 4u);
    cars[i].maxSpeed = (r >> 8) % 6u == 0 ? 3 : 5 + (int)((r >> 16) % 3u);
    cars[i].speed = (int)((r >> 24) % (uint32_t)(cars[i].maxSpeed + 1));
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int steps = argc > 2 ? atoi(argv[2]) : 30;
  if (n < 4 || steps < 1) {
    fprintf(stderr, "usage: %s [vehicles >= 4] [steps >= 1]\n", argv[0]);
    return 2;
  }
  RoadParams road;
  road.lanes = 4;
  road.length = (n + road.lanes - 1) / road.lanes * 5;
  road.slowdown = 13107;  // 0.2
  road.seed = 20261123u;
  const int cells = road.lanes * road.length;

  std::vector<Vehicle> cars(n);
  placeVehicles(cars.data(), n, road);

  Vehicle* d_cars;
  CUDA_CHECK(cudaMalloc(&d_cars, n * sizeof(Vehicle)));
  CUDA_CHECK(cudaMemcpy(d_cars, cars.data(), n * sizeof(Vehicle), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_road, &road, sizeof(RoadParams)));

  // One scratch allocation for the occupancy grid, the lane claims and the wanted lanes.
  char* scratch;
  size_t gridBytes = (size_t)cells * sizeof(int);
  CUDA_CHECK(cudaMalloc((void**)&scratch, 2 * gridBytes + n * sizeof(int)));
  int* d_grid = (int*)scratch;
  int* d_claims = (int*)(scratch + gridBytes);
  int* d_wanted = (int*)(scratch + 2 * gridBytes);

  unsigned long long* d_flow;
  CUDA_CHECK(cudaMalloc(&d_flow, steps * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(d_flow, 0, steps * sizeof(unsigned long long)));

  const int block = 256;
  const int vehicleBlocks = (n + block - 1) / block;
  const int cellBlocks = std::min((cells + block - 1) / block, 4096);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int step = 0; step < steps; ++step) {
    fillCells<<<cellBlocks, block>>>(d_grid, cells, kEmpty);
    fillCells<<<cellBlocks, block>>>(d_claims, cells, n);
    markOccupancy<<<vehicleBlocks, block>>>(d_cars, n, d_grid);
    proposeLaneChange<<<vehicleBlocks, block>>>(d_cars, n, d_grid, d_claims, d_wanted, step);
    applyLaneChange<<<vehicleBlocks, block>>>(d_cars, n, d_claims, d_wanted);
    fillCells<<<cellBlocks, block>>>(d_grid, cells, kEmpty);
    markOccupancy<<<vehicleBlocks, block>>>(d_cars, n, d_grid);
    driveStep<<<vehicleBlocks, block>>>(d_cars, n, d_grid, step, d_flow);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<Vehicle> gpu(n);
  std::vector<unsigned long long> flow(steps);
  CUDA_CHECK(cudaMemcpy(gpu.data(), d_cars, n * sizeof(Vehicle), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(flow.data(), d_flow, steps * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

  std::vector<long long> cpuFlow(steps);
  simulateCpu(cars.data(), n, road, steps, cpuFlow.data());

  // The model is integer-only: GPU and CPU must agree exactly (tolerance 0).
  long long mismatches = 0, laneSum = 0, posSum = 0;
  int histogram[kMaxSpeedCap + 1] = {0};
  for (int i = 0; i < n; ++i) {
    mismatches += memcmp(&gpu[i], &cars[i], sizeof(Vehicle)) != 0;
    laneSum += gpu[i].lane;
    posSum += gpu[i].pos;
    histogram[std::min(gpu[i].speed, kMaxSpeedCap)]++;
  }
  for (int s = 0; s < steps; ++s) mismatches += (long long)flow[s] != cpuFlow[s];

  printf("vehicles %d, lanes %d, cells per lane %d, steps %d, GPU %.3f ms\n", n, road.lanes, road.length, steps, ms);
  printf("mean speed at last step: %.4f cells/step\n", (double)flow[steps - 1] / n);
  printf("lane checksum %lld, position checksum %lld\n", laneSum, posSum);
  printf("speed histogram:");
  for (int s = 0; s <= kMaxSpeedCap; ++s) printf(" %d", histogram[s]);
  printf("\n");
  bool passed = mismatches == 0;
  printf("%s (GPU vs CPU, exact: %lld mismatching vehicles or steps)\n", passed ? "CHECK PASSED" : "CHECK FAILED",
         mismatches);

  cudaFree(d_flow);
  cudaFree(scratch);
  cudaFree(d_cars);
  return passed ? 0 : 1;
}
