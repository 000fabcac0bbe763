// A planned struct's device form: the partition of its fields into arrays. SoA is the case where
// every cluster holds one field; the clustered form packs several into an __align__(16) struct.
#pragma once

#include "relayout/core/Plan.h"

#include <llvm/Support/Error.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace relayout::rw {

struct DeviceArray {
  std::string member;               // its member in the device struct: the field, or the cluster name
  std::string clusterStruct;        // "Particle_pos" for a multi-field cluster, empty for a plain array
  std::vector<std::string> fields;  // in plan order
  // An array field in a plain array (SoA, or a one-field cluster) stored by index (variable-major):
  // one run of `stride` values per index. Decided for the whole program (Rewriter.cpp); `keptWhy` says why an array field is not split.
  bool split = false;
  std::string keptWhy;
};

struct DeviceLayout {
  std::string structName;  // as the plan names it
  std::string baseName;    // unqualified: names are derived from it
  std::string deviceName;  // "ParticleSoA" or "ParticleClusters"
  Layout layout = Layout::SoA;
  std::string reason;
  std::vector<DeviceArray> arrays;  // in plan order
  std::string strideMember;         // the member holding the count split arrays are spaced by

  const DeviceArray* arrayOf(const std::string& field) const;
  // Every name the generated code declares in the struct's scope.
  std::vector<std::string> declaredNames() const;
};

// Checks `plan` against the struct's fields (each in exactly one cluster, cluster names usable as
// identifiers) and derives the device form. Errors name the plan's struct and field.
llvm::Expected<DeviceLayout> makeDeviceLayout(const StructPlan& plan, const std::string& baseName,
                                              const std::vector<std::string>& fields);

// One subscript of an access to a split array: its text, parenthesized where an operand of `*`
// needs it, or its value when it is an integer literal.
struct Subscript {
  std::string text;
  std::optional<uint64_t> value;
};

// Where a split array holds the value at `subscripts` (of an array field of `dims`) of element
// `element` (empty: element 0): the row-major flat index of the subscripts times `stride`, plus the
// element. "(3 * j + k) * p.stride + i", "2 * p.stride + i", "i"; literal subscripts fold.
std::string splitIndex(const std::vector<uint64_t>& dims, const std::vector<Subscript>& subscripts,
                       const std::string& stride, const std::string& element);

}  // namespace relayout::rw
