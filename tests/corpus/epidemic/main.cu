// Agent-based SIR epidemic on a synthetic contact graph.
// Usage: epidemic [agents] [days]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "agent.h"
#include "sir_kernels.cuh"

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e = (x);                                                               \
    if (e != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

static const int kHouseholdSize = 4;
static const int kRandomContacts = 8;
static const float kMapKm = 100.0f;
static const int kRegionsPerSide = 8;

struct DayCounts {
  unsigned int s, i, r;
};

static void initPopulation(Agent* agents, int n, uint32_t seed) {
  for (int i = 0; i < n; ++i) {
    uint32_t h = hashDraw(i, 7, seed);
    int age = h % AGE_GROUPS;
    int susceptibility = 40 + 20 * age;             // older agents catch it more easily
    int infectivity = 50 + (int)((h >> 8) % 51u);   // 50..100
    int household = i / kHouseholdSize;
    float2 home = make_float2((hashDraw(household, 11, seed) >> 8) * (kMapKm / 16777216.0f),
                              (hashDraw(household, 13, seed) >> 8) * (kMapKm / 16777216.0f));
    agents[i] = Agent(age, susceptibility, infectivity, home);
    if (hashDraw(i, 17, seed) % 2000u == 0) agents[i].infect();  // index cases, 0.05%
  }
}

static void simulateCpu(std::vector<Agent>& agents, const std::vector<int>& rowStart, const std::vector<int>& contacts,
                        const DiseaseParams& p, int days, std::vector<DayCounts>& history) {
  int n = (int)agents.size();
  std::vector<uint8_t> newly(n);
  for (int day = 0; day < days; ++day) {
    for (int i = 0; i < n; ++i) {
      newly[i] = 0;
      if (agents[i].state() != Susceptible) continue;
      uint64_t pressure = 0;
      for (int e = rowStart[i]; e < rowStart[i + 1]; ++e)
        if (agents[contacts[e]].isInfected()) pressure += agents[contacts[e]].infectivity();
      if (pressure > 0 && catchesInfection(agents[i], pressure, p, hashDraw(i, day, p.seed))) newly[i] = 1;
    }
    DayCounts c = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
      if (newly[i])
        agents[i].infect();
      else if (agents[i].state() == Infected)
        agents[i].advanceDay(p);
      HealthState s = agents[i].state();
      (s == Susceptible ? c.s : s == Infected ? c.i : c.r)++;
    }
    history.push_back(c);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 19;
  int days = argc > 2 ? atoi(argv[2]) : 50;
  if (n < kHouseholdSize || days < 1) {
    fprintf(stderr, "usage: %s [agents >= %d] [days >= 1]\n", argv[0], kHouseholdSize);
    return 2;
  }
  DiseaseParams params = {{9, 8, 7, 10}, 30000, 424242u};

  // Agents in managed memory: the host initialises them in place and reads the result back.
  Agent* agents;
  CHECK_CUDA(cudaMallocManaged(&agents, n * sizeof(Agent)));
  initPopulation(agents, n, params.seed);
  std::vector<Agent> cpuAgents(agents, agents + n);

  int edges = contactGraphEdges(n, kHouseholdSize, kRandomContacts);
  std::vector<int> rowStart(n + 1), contacts(edges);
  buildContactGraph(n, kHouseholdSize, kRandomContacts, params.seed, rowStart.data(), contacts.data());
  ContactGraph g;
  g.n = n;
  CHECK_CUDA(cudaMalloc(&g.rowStart, (n + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&g.contacts, edges * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(g.rowStart, rowStart.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(g.contacts, contacts.data(), edges * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpyToSymbol(c_disease, &params, sizeof(params)));

  uint8_t* newlyInfected;
  unsigned int* counters;  // per day: S, I, R
  unsigned int* regions;
  CHECK_CUDA(cudaMalloc(&newlyInfected, n));
  CHECK_CUDA(cudaMalloc(&counters, days * 3 * sizeof(unsigned int)));
  CHECK_CUDA(cudaMalloc(&regions, kRegionsPerSide * kRegionsPerSide * sizeof(unsigned int)));
  CHECK_CUDA(cudaMemset(counters, 0, days * 3 * sizeof(unsigned int)));
  CHECK_CUDA(cudaMemset(regions, 0, kRegionsPerSide * kRegionsPerSide * sizeof(unsigned int)));

  const int block = 256, blocks = (n + block - 1) / block;
  const int censusBlocks = std::min(blocks, 1024);
  for (int day = 0; day < days; ++day) {
    exposeKernel<<<blocks, block>>>(agents, g, newlyInfected, day);
    progressKernel<<<blocks, block>>>(agents, n, newlyInfected);
    census<<<censusBlocks, block>>>(agents, n, InState{Susceptible}, counters + 3 * day);
    census<<<censusBlocks, block>>>(agents, n, InState{Infected}, counters + 3 * day + 1);
    census<<<censusBlocks, block>>>(agents, n, InState{Recovered}, counters + 3 * day + 2);
  }
  incidenceMap<<<blocks, block>>>(agents, n, kMapKm / kRegionsPerSide, kRegionsPerSide, regions);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<unsigned int> gpuCounts(days * 3), gpuRegions(kRegionsPerSide * kRegionsPerSide);
  CHECK_CUDA(cudaMemcpy(gpuCounts.data(), counters, gpuCounts.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(gpuRegions.data(), regions, gpuRegions.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));

  std::vector<DayCounts> history;
  simulateCpu(cpuAgents, rowStart, contacts, params, days, history);

  // Integer rules and counter-based draws: every day's counts and every agent's state must match exactly.
  int bad = 0, peakDay = 0;
  for (int d = 0; d < days; ++d) {
    bad += gpuCounts[3 * d] != history[d].s || gpuCounts[3 * d + 1] != history[d].i ||
           gpuCounts[3 * d + 2] != history[d].r;
    if (history[d].i > history[peakDay].i) peakDay = d;
  }
  unsigned int cpuRegions[kRegionsPerSide * kRegionsPerSide] = {0};
  for (int i = 0; i < n; ++i) {
    bad += agents[i].state() != cpuAgents[i].state() || agents[i].daysInState() != cpuAgents[i].daysInState();
    if (cpuAgents[i].isInfected()) {
      float2 h = cpuAgents[i].home();
      float region = kMapKm / kRegionsPerSide;
      int rx = std::min((int)(h.x / region), kRegionsPerSide - 1), ry = std::min((int)(h.y / region), kRegionsPerSide - 1);
      cpuRegions[ry * kRegionsPerSide + rx]++;
    }
  }
  unsigned int busiest = 0;
  for (int r = 0; r < kRegionsPerSide * kRegionsPerSide; ++r) {
    bad += gpuRegions[r] != cpuRegions[r];
    busiest = std::max(busiest, gpuRegions[r]);
  }
  const DayCounts& last = history.back();
  printf("agents %d, contacts %d, days %d\n", n, edges, days);
  printf("peak infections %u on day %d\n", history[peakDay].i, peakDay);
  printf("final S %u I %u R %u (GPU S %u I %u R %u)\n", last.s, last.i, last.r, gpuCounts[3 * days - 3],
         gpuCounts[3 * days - 2], gpuCounts[3 * days - 1]);
  printf("attack rate %.4f, busiest region %u active\n", (double)(last.i + last.r) / n, busiest);
  printf("%s (GPU vs CPU, exact: %d mismatching days, agents or regions)\n", bad ? "CHECK FAILED" : "CHECK PASSED", bad);

  cudaFree(regions);
  cudaFree(counters);
  cudaFree(newlyInfected);
  cudaFree(g.contacts);
  cudaFree(g.rowStart);
  cudaFree(agents);
  return bad ? 1 : 0;
}
