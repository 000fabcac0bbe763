// Builds the cell list each step: atoms binned by cell, each cell's atoms listed in index order.
#pragma once
#include "lj.h"

constexpr int kScanThreads = 1024;

__global__ void assignCells(const Atom* atoms, int n, Box box, int* atomCell, int* cellCount) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 p = atoms[i].position();
  int c = cellIndex(cellCoord(p.x, box), cellCoord(p.y, box), cellCoord(p.z, box), box.cellsPerDim);
  atomCell[i] = c;
  atomicAdd(&cellCount[c], 1);
}

// Exclusive prefix sum of the cell counts, one block, kScanThreads cells at a time.
__global__ void scanCells(const int* cellCount, int* cellStart, int* cellCursor, int ncells) {
  __shared__ int scan[kScanThreads];
  __shared__ int carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < ncells; base += kScanThreads) {
    int c = base + threadIdx.x;
    int count = c < ncells ? cellCount[c] : 0;
    scan[threadIdx.x] = count;
    __syncthreads();
    for (int offset = 1; offset < kScanThreads; offset *= 2) {
      int add = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0;
      __syncthreads();
      scan[threadIdx.x] += add;
      __syncthreads();
    }
    if (c < ncells) {
      cellStart[c] = carry + scan[threadIdx.x] - count;
      cellCursor[c] = 0;
    }
    __syncthreads();
    if (threadIdx.x == kScanThreads - 1) carry += scan[threadIdx.x];
    __syncthreads();
  }
}

__global__ void fillCells(const int* atomCell, int n, const int* cellStart, int* cellCursor, int* cellAtoms) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = atomCell[i];
  cellAtoms[cellStart[c] + atomicAdd(&cellCursor[c], 1)] = i;
}

// The fill order depends on thread timing; sorting each cell makes the force sums reproducible.
__global__ void sortCells(const int* cellStart, const int* cellCount, int* cellAtoms, int ncells) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  int* list = cellAtoms + cellStart[c];
  for (int k = 1; k < cellCount[c]; ++k) {
    int v = list[k];
    int j = k - 1;
    while (j >= 0 && list[j] > v) {
      list[j + 1] = list[j];
      --j;
    }
    list[j + 1] = v;
  }
}
