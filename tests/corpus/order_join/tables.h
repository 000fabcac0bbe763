// Two tables of a sales database, row by row as the loader lays them out, and the hash table the
// join builds on the customers.
#pragma once
#include <cuda_runtime.h>

constexpr int kNations = 25;
constexpr int kSegments = 5;
constexpr int kGroups = kNations * kSegments;
constexpr int kDaysPerYear = 365;
constexpr int kYears = 7;
constexpr int kEmpty = -1;

struct Customer {
  int custKey;
  int nationKey;
  int segment;  // 0..kSegments-1
  int balanceCents;
};

struct Order {
  int orderKey;
  int custKey;
  int orderDate;   // days since 1 Jan of the first year
  int totalCents;
  short priority;  // 1 (urgent) .. 5 (low)
  char status;     // 'F' fulfilled, 'O' open, 'P' pending
  char channel;    // 'W' web, 'S' store
};

struct Slot {
  int key;  // kEmpty when free
  int row;
};

// Customer keys are 7 * row + 3; an order names a key that no customer has now and then.
__host__ __device__ inline int customerKey(int row) { return 7 * row + 3; }

__host__ __device__ inline unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Order `i` of a table over `customers` customers (the generator runs on the GPU; the check redraws rows).
__host__ __device__ inline Order makeOrder(int i, int customers) {
  const unsigned h0 = mix32(unsigned(i) * 2u + 1u), h1 = mix32(h0 ^ 0x9e3779b9u), h2 = mix32(h1 + 0x632be5abu);
  Order o;
  o.orderKey = 1000000 + i;
  const int row = int(h0 % unsigned(customers));
  o.custKey = (h1 & 63u) == 0 ? customerKey(row) + 2 : customerKey(row);
  o.orderDate = int(h1 >> 8) % (kYears * kDaysPerYear);
  o.totalCents = 100 + int(h2 % 5000000u);
  o.priority = short(1 + (h2 >> 24) % 5);
  const unsigned s = (h0 >> 20) % 8u;
  o.status = s < 4 ? 'F' : (s < 7 ? 'O' : 'P');
  o.channel = (h2 & 1u) ? 'W' : 'S';
  return o;
}

// Net revenue of an order in cents: urgent orders and the first segment get a discount.
__host__ __device__ inline long long netCents(const Order& o, const Customer& c) {
  const int discount = (o.priority == 1 ? 5 : 0) + (c.segment == 0 ? 3 : 0);
  return (long long)o.totalCents * (100 - discount) / 100;
}

__host__ __device__ inline unsigned slotOf(int key, int shift) { return (unsigned(key) * 0x9e3779b1u) >> shift; }

// A query: revenue per (nation, segment) of the orders of one year with one status.
struct Query {
  int dateLo, dateHi;
  char status;
};
