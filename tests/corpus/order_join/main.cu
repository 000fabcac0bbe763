// Revenue per nation and market segment of the orders of one year and one status, joined with their
// customers through a hash table: 21 distinct queries, run round after round as a dashboard would.
// The first round is checked against the CPU, and every later round against the first.
// usage: order_join [orders = 4194304] [customers = 262144] [rounds = 120]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"
#include "join.h"

namespace {

constexpr int kStatuses = 3;
constexpr char kStatus[kStatuses] = {'F', 'O', 'P'};
constexpr int kDistinct = kYears * kStatuses;

Query queryNumber(int q) {
  const int year = q % kYears, status = (q / kYears) % kStatuses;
  return Query{year * kDaysPerYear, (year + 1) * kDaysPerYear, kStatus[status]};
}

std::vector<Customer> makeCustomers(int n) {
  std::vector<Customer> customers(n);
  for (int i = 0; i < n; ++i) {
    const unsigned h = mix32(unsigned(i) + 0x51ed27u);
    customers[i] = Customer{customerKey(i), int(h % kNations), int((h >> 8) % kSegments), int((h >> 12) % 1000000u)};
  }
  return customers;
}

void printCents(const char* label, unsigned long long cents) {
  std::printf("%s %llu.%02llu\n", label, cents / 100, cents % 100);
}

}  // namespace

int main(int argc, char** argv) {
  const int orders = argc > 1 ? std::atoi(argv[1]) : 1 << 22;
  const int customerCount = argc > 2 ? std::atoi(argv[2]) : 1 << 18;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 120;
  if (orders < 1000 || customerCount < 100 || customerCount > (1 << 28) || rounds < 1 || rounds * kDistinct > 4096) {
    std::fprintf(stderr, "usage: %s [orders >= 1000] [customers 100..2^28] [rounds 1..%d]\n", argv[0],
                 4096 / kDistinct);
    return 2;
  }
  const int queries = rounds * kDistinct;
  const std::vector<Customer> customers = makeCustomers(customerCount);
  JoinEngine engine(customers, orders, queries);

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  long long selectedTotal = 0;
  CHECK(cudaEventRecord(start));
  for (int q = 0; q < queries; ++q) selectedTotal += engine.run(queryNumber(q), q);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::vector<unsigned long long> revenue, orderCount;
  std::vector<unsigned> unmatched;
  engine.results(revenue, orderCount, unmatched);

  // The 21 distinct queries in one pass over the same orders on the CPU.
  std::vector<unsigned long long> refRevenue(size_t(kDistinct) * kGroups, 0), refOrders(size_t(kDistinct) * kGroups, 0);
  std::vector<unsigned> refUnmatched(kDistinct, 0);
  for (int i = 0; i < orders; ++i) {
    const Order o = makeOrder(i, customerCount);
    const int status = int(std::find(kStatus, kStatus + kStatuses, o.status) - kStatus);
    const int q = o.orderDate / kDaysPerYear + kYears * status;
    const int row = (o.custKey - 3) % 7 == 0 ? (o.custKey - 3) / 7 : -1;
    if (row < 0 || row >= customerCount) {
      ++refUnmatched[q];
      continue;
    }
    const Customer& c = customers[row];
    const int group = c.nationKey * kSegments + c.segment;
    refRevenue[size_t(q) * kGroups + group] += (unsigned long long)netCents(o, c);
    ++refOrders[size_t(q) * kGroups + group];
  }
  int wrong = 0;
  for (int q = 0; q < queries; ++q) {
    const int d = q % kDistinct;
    bool same = unmatched[q] == refUnmatched[d];
    for (int g = 0; g < kGroups; ++g)
      same = same && revenue[size_t(q) * kGroups + g] == refRevenue[size_t(d) * kGroups + g] &&
             orderCount[size_t(q) * kGroups + g] == refOrders[size_t(d) * kGroups + g];
    if (!same) ++wrong;
  }

  unsigned long long total0 = 0, best = 0;
  int bestGroup = 0;
  for (int g = 0; g < kGroups; ++g) {
    total0 += revenue[g];
    if (revenue[g] > best) {
      best = revenue[g];
      bestGroup = g;
    }
  }
  unsigned long long unmatchedTotal = 0;
  for (unsigned u : unmatched) unmatchedTotal += u;
  std::printf("%d orders, %d customers, %d queries (%d rounds of %d)\n", orders, customerCount, queries, rounds,
              kDistinct);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("orders selected over all queries %lld, without a customer %llu\n", selectedTotal, unmatchedTotal);
  printCents("query 0 (first year, fulfilled) revenue", total0);
  std::printf("query 0 top group: nation %d segment %d with %llu orders\n", bestGroup / kSegments,
              bestGroup % kSegments, orderCount[bestGroup]);
  printCents("query 0 top group revenue", best);
  std::printf("against the CPU: %d of %d queries differ\n", wrong, queries);
  const bool passed = wrong == 0;
  std::printf("%s (every query's revenue and counts equal the CPU's)\n", passed ? "CHECK PASSED" : "CHECK FAILED");
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  return passed ? 0 : 1;
}
