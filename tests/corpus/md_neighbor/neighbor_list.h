// A Verlet neighbour list built on the GPU from a cell list. Entry k of atom i's list is at
// list()[k * stride() + i], so that a warp reading its atoms' k-th neighbours reads consecutive words.
#pragma once
#include "lj.h"

class NeighborList {
 public:
  NeighborList(int atoms, const Box& box, float radius, int capacity);
  ~NeighborList();
  NeighborList(const NeighborList&) = delete;
  NeighborList& operator=(const NeighborList&) = delete;

  // Lists, for every atom, the atoms closer than the radius; the order is the same on every run.
  void build(const float4* pos);
  // The longest list seen so far when one did not fit, else 0.
  int overflow() const;

  const int* counts() const { return counts_; }
  const int* list() const { return list_; }
  int stride() const { return atoms_; }
  int capacity() const { return capacity_; }
  const CellGrid& grid() const { return grid_; }
  int builds() const { return builds_; }

 private:
  int atoms_;
  int capacity_;
  Box box_;
  float radius2_;
  CellGrid grid_;
  int builds_ = 0;
  int* atomCell_ = nullptr;
  int* cellCount_ = nullptr;
  int* cellStart_ = nullptr;
  int* cellCursor_ = nullptr;
  int* cellAtoms_ = nullptr;
  int* counts_ = nullptr;
  int* list_ = nullptr;
  int* overflow_ = nullptr;
};
