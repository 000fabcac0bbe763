// Neighbour-list construction: bin the atoms into cells (counting sort), sort each cell so that the
// lists come out in the same order on every run, then list each atom's neighbours from 27 cells.
#include <cmath>

#include "check.h"
#include "neighbor_list.h"

namespace {

constexpr int kThreads = 128;
constexpr int kScanThreads = 1024;

__global__ void binAtoms(const float4* pos, int n, CellGrid grid, int* atomCell, int* cellCount) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 p = pos[i];
  const int c = grid.index(grid.coord(p.x), grid.coord(p.y), grid.coord(p.z));
  atomCell[i] = c;
  atomicAdd(&cellCount[c], 1);
}

// Exclusive prefix sum of the cell counts in one block, kScanThreads cells at a time.
__global__ void scanCells(const int* cellCount, int* cellStart, int* cellCursor, int cells) {
  __shared__ int scan[kScanThreads];
  __shared__ int carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < cells; base += kScanThreads) {
    const int c = base + threadIdx.x;
    const int count = c < cells ? cellCount[c] : 0;
    scan[threadIdx.x] = count;
    __syncthreads();
    for (int offset = 1; offset < kScanThreads; offset *= 2) {
      const int add = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0;
      __syncthreads();
      scan[threadIdx.x] += add;
      __syncthreads();
    }
    if (c < cells) {
      cellStart[c] = carry + scan[threadIdx.x] - count;
      cellCursor[c] = 0;
    }
    __syncthreads();
    if (threadIdx.x == kScanThreads - 1) carry += scan[threadIdx.x];
    __syncthreads();
  }
}

__global__ void fillCells(const int* atomCell, int n, const int* cellStart, int* cellCursor, int* cellAtoms) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = atomCell[i];
  cellAtoms[cellStart[c] + atomicAdd(&cellCursor[c], 1)] = i;
}

// The fill order depends on timing; an insertion sort per cell makes it the atoms' order.
__global__ void sortCells(const int* cellStart, const int* cellCount, int* cellAtoms, int cells) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  int* atoms = cellAtoms + cellStart[c];
  for (int k = 1; k < cellCount[c]; ++k) {
    const int v = atoms[k];
    int j = k - 1;
    while (j >= 0 && atoms[j] > v) {
      atoms[j + 1] = atoms[j];
      --j;
    }
    atoms[j + 1] = v;
  }
}

__global__ void listNeighbors(const float4* pos, int n, Box box, CellGrid grid, float radius2, const int* cellStart,
                              const int* cellCount, const int* cellAtoms, int capacity, int* counts, int* list,
                              int* overflow) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 pi = pos[i];
  const int cx = grid.coord(pi.x), cy = grid.coord(pi.y), cz = grid.coord(pi.z);
  int count = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int c = grid.index(cx + dx, cy + dy, cz + dz);
        const int begin = cellStart[c], end = begin + cellCount[c];
        for (int k = begin; k < end; ++k) {
          const int j = cellAtoms[k];
          if (j == i) continue;
          const float4 pj = pos[j];
          const float rx = box.minimumImage(pi.x - pj.x);
          const float ry = box.minimumImage(pi.y - pj.y);
          const float rz = box.minimumImage(pi.z - pj.z);
          if (rx * rx + ry * ry + rz * rz >= radius2) continue;
          if (count < capacity) list[count * n + i] = j;
          ++count;
        }
      }
  counts[i] = count < capacity ? count : capacity;
  if (count > capacity) atomicMax(overflow, count);
}

}  // namespace

NeighborList::NeighborList(int atoms, const Box& box, float radius, int capacity)
    : atoms_(atoms), capacity_(capacity), box_(box), radius2_(radius * radius) {
  grid_.cellsPerSide = static_cast<int>(std::floor(box.length / radius));
  if (grid_.cellsPerSide < 3) {
    std::fprintf(stderr, "md_neighbor: the box is too small for a cell list (%.3f < 3 x %.3f)\n", box.length, radius);
    std::exit(2);
  }
  grid_.cellSize = box.length / grid_.cellsPerSide;
  const int cells = grid_.cells();
  CHECK(cudaMalloc(&atomCell_, sizeof(int) * atoms));
  CHECK(cudaMalloc(&cellAtoms_, sizeof(int) * atoms));
  CHECK(cudaMalloc(&cellCount_, sizeof(int) * cells));
  CHECK(cudaMalloc(&cellStart_, sizeof(int) * cells));
  CHECK(cudaMalloc(&cellCursor_, sizeof(int) * cells));
  CHECK(cudaMalloc(&counts_, sizeof(int) * atoms));
  CHECK(cudaMalloc(&list_, sizeof(int) * size_t(atoms) * capacity));
  CHECK(cudaMalloc(&overflow_, sizeof(int)));
  CHECK(cudaMemset(overflow_, 0, sizeof(int)));
}

NeighborList::~NeighborList() {
  cudaFree(overflow_);
  cudaFree(list_);
  cudaFree(counts_);
  cudaFree(cellCursor_);
  cudaFree(cellStart_);
  cudaFree(cellCount_);
  cudaFree(cellAtoms_);
  cudaFree(atomCell_);
}

void NeighborList::build(const float4* pos) {
  const int cells = grid_.cells();
  const int blocks = (atoms_ + kThreads - 1) / kThreads;
  CHECK(cudaMemset(cellCount_, 0, sizeof(int) * cells));
  binAtoms<<<blocks, kThreads>>>(pos, atoms_, grid_, atomCell_, cellCount_);
  scanCells<<<1, kScanThreads>>>(cellCount_, cellStart_, cellCursor_, cells);
  fillCells<<<blocks, kThreads>>>(atomCell_, atoms_, cellStart_, cellCursor_, cellAtoms_);
  sortCells<<<(cells + kThreads - 1) / kThreads, kThreads>>>(cellStart_, cellCount_, cellAtoms_, cells);
  listNeighbors<<<blocks, kThreads>>>(pos, atoms_, box_, grid_, radius2_, cellStart_, cellCount_, cellAtoms_,
                                      capacity_, counts_, list_, overflow_);
  CHECK(cudaGetLastError());
  ++builds_;
}

int NeighborList::overflow() const {
  int longest = 0;
  CHECK(cudaMemcpy(&longest, overflow_, sizeof(int), cudaMemcpyDeviceToHost));
  return longest;
}
