// The query engine: the customers' hash table is built once, then each query scans the orders,
// keeps the matching ones and joins them with their customers.
#pragma once
#include <vector>

#include "tables.h"

class JoinEngine {
 public:
  JoinEngine(const std::vector<Customer>& customers, int orders, int maxQueries);
  ~JoinEngine();
  JoinEngine(const JoinEngine&) = delete;
  JoinEngine& operator=(const JoinEngine&) = delete;

  // Runs query number `index`; returns how many orders it selected. Its revenue and order counts per
  // group stay on the device until results().
  int run(const Query& q, int index);
  // Per query: kGroups revenues (cents), kGroups order counts, and the selected orders without a customer.
  void results(std::vector<unsigned long long>& revenue, std::vector<unsigned long long>& orders,
               std::vector<unsigned>& unmatched) const;

 private:
  int customers_, orders_, maxQueries_;
  int capacity_, shift_;
  Customer* customerRows_ = nullptr;
  Order* orderRows_ = nullptr;
  Slot* table_ = nullptr;
  int* selected_ = nullptr;
  int* selectedCount_ = nullptr;
  unsigned long long* revenue_ = nullptr;
  unsigned long long* orderCount_ = nullptr;
  unsigned* unmatched_ = nullptr;
};
