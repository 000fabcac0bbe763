// JoinEngine: device tables and the launches of a query.
#include "check.h"
#include "join.h"
#include "join_kernels.cuh"

namespace {
constexpr int kThreads = 256;
}

JoinEngine::JoinEngine(const std::vector<Customer>& customers, int orders, int maxQueries)
    : customers_(int(customers.size())), orders_(orders), maxQueries_(maxQueries) {
  // A power of two at least twice the customers: the table stays at most half full.
  capacity_ = 1;
  shift_ = 32;
  while (capacity_ < 2 * customers_) {
    capacity_ *= 2;
    --shift_;
  }
  CHECK(cudaMalloc(&customerRows_, sizeof(Customer) * customers_));
  CHECK(cudaMalloc(&orderRows_, sizeof(Order) * size_t(orders_)));
  CHECK(cudaMalloc(&table_, sizeof(Slot) * capacity_));
  CHECK(cudaMalloc(&selected_, sizeof(int) * size_t(orders_)));
  CHECK(cudaMalloc(&selectedCount_, sizeof(int)));
  CHECK(cudaMalloc(&revenue_, sizeof(unsigned long long) * kGroups * maxQueries));
  CHECK(cudaMalloc(&orderCount_, sizeof(unsigned long long) * kGroups * maxQueries));
  CHECK(cudaMalloc(&unmatched_, sizeof(unsigned) * maxQueries));
  CHECK(cudaMemset(revenue_, 0, sizeof(unsigned long long) * kGroups * maxQueries));
  CHECK(cudaMemset(orderCount_, 0, sizeof(unsigned long long) * kGroups * maxQueries));
  CHECK(cudaMemset(unmatched_, 0, sizeof(unsigned) * maxQueries));
  CHECK(cudaMemcpy(customerRows_, customers.data(), sizeof(Customer) * customers_, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(table_, 0xff, sizeof(Slot) * capacity_));  // every key kEmpty

  generateOrders<<<(orders_ + kThreads - 1) / kThreads, kThreads>>>(orderRows_, orders_, customers_);
  buildTable<<<(customers_ + kThreads - 1) / kThreads, kThreads>>>(customerRows_, customers_, table_, capacity_ - 1,
                                                                   shift_);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
}

JoinEngine::~JoinEngine() {
  cudaFree(unmatched_);
  cudaFree(orderCount_);
  cudaFree(revenue_);
  cudaFree(selectedCount_);
  cudaFree(selected_);
  cudaFree(table_);
  cudaFree(orderRows_);
  cudaFree(customerRows_);
}

int JoinEngine::run(const Query& q, int index) {
  CHECK(cudaMemsetAsync(selectedCount_, 0, sizeof(int)));
  selectOrders<<<(orders_ + kThreads - 1) / kThreads, kThreads>>>(orderRows_, orders_, q, selected_, selectedCount_);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, selectedCount_, sizeof(int), cudaMemcpyDeviceToHost));
  if (count > 0) {
    joinRevenue<<<(count + kThreads - 1) / kThreads, kThreads>>>(
        orderRows_, selected_, count, table_, capacity_ - 1, shift_, customerRows_, revenue_ + size_t(index) * kGroups,
        orderCount_ + size_t(index) * kGroups, unmatched_ + index);
    CHECK(cudaGetLastError());
  }
  return count;
}

void JoinEngine::results(std::vector<unsigned long long>& revenue, std::vector<unsigned long long>& orders,
                         std::vector<unsigned>& unmatched) const {
  revenue.resize(size_t(kGroups) * maxQueries_);
  orders.resize(size_t(kGroups) * maxQueries_);
  unmatched.resize(maxQueries_);
  CHECK(cudaMemcpy(revenue.data(), revenue_, sizeof(unsigned long long) * revenue.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(orders.data(), orderCount_, sizeof(unsigned long long) * orders.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(unmatched.data(), unmatched_, sizeof(unsigned) * unmatched.size(), cudaMemcpyDeviceToHost));
}
