// Generation, hash build, selection scan and join of the query engine.
#pragma once
#include "tables.h"

__global__ void generateOrders(Order* orders, int n, int customers) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) orders[i] = makeOrder(i, customers);
}

// Linear probing; a slot is claimed by swapping its key in.
__global__ void buildTable(const Customer* customers, int n, Slot* table, unsigned mask, int shift) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int key = customers[i].custKey;
  unsigned slot = slotOf(key, shift);
  while (true) {
    const int previous = atomicCAS(&table[slot].key, kEmpty, key);
    if (previous == kEmpty) {
      table[slot].row = i;
      return;
    }
    slot = (slot + 1) & mask;
  }
}

__device__ int findRow(const Slot* table, unsigned mask, int shift, int key) {
  unsigned slot = slotOf(key, shift);
  while (true) {
    const Slot s = table[slot];
    if (s.key == key) return s.row;
    if (s.key == kEmpty) return -1;
    slot = (slot + 1) & mask;
  }
}

// The orders of the query's dates and status, their indices compacted (in no fixed order).
__global__ void selectOrders(const Order* orders, int n, Query q, int* selected, int* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int date = orders[i].orderDate;
  if (date >= q.dateLo && date < q.dateHi && orders[i].status == q.status) selected[atomicAdd(count, 1)] = i;
}

// Each selected order finds its customer; revenue and counts are summed per block in shared memory,
// then added to the query's totals (integer sums: the order of the additions does not matter).
__global__ void joinRevenue(const Order* orders, const int* selected, int count, const Slot* table, unsigned mask,
                            int shift, const Customer* customers, unsigned long long* revenue,
                            unsigned long long* orderCount, unsigned* unmatched) {
  __shared__ unsigned long long blockRevenue[kGroups];
  __shared__ unsigned long long blockOrders[kGroups];
  for (int g = threadIdx.x; g < kGroups; g += blockDim.x) {
    blockRevenue[g] = 0;
    blockOrders[g] = 0;
  }
  __syncthreads();
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    const Order o = orders[selected[k]];
    const int row = findRow(table, mask, shift, o.custKey);
    if (row < 0) {
      atomicAdd(unmatched, 1u);
    } else {
      const Customer c = customers[row];
      const int group = c.nationKey * kSegments + c.segment;
      atomicAdd(&blockRevenue[group], (unsigned long long)netCents(o, c));
      atomicAdd(&blockOrders[group], 1ull);
    }
  }
  __syncthreads();
  for (int g = threadIdx.x; g < kGroups; g += blockDim.x)
    if (blockOrders[g] != 0) {
      atomicAdd(&revenue[g], blockRevenue[g]);
      atomicAdd(&orderCount[g], blockOrders[g]);
    }
}
