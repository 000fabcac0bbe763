// A planned struct's device form: the partition of its fields into arrays. SoA is the case where
// every cluster holds one field; the clustered form packs several into an __align__(16) struct.
#pragma once

#include "relayout/core/Plan.h"

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout::rw {

struct DeviceArray {
  std::string member;               // its member in the device struct: the field, or the cluster name
  std::string clusterStruct;        // "Particle_pos" for a multi-field cluster, empty for a plain array
  std::vector<std::string> fields;  // in plan order
};

struct DeviceLayout {
  std::string structName;  // as the plan names it
  std::string baseName;    // unqualified: names are derived from it
  std::string deviceName;  // "ParticleSoA" or "ParticleClusters"
  Layout layout = Layout::SoA;
  std::string reason;
  std::vector<DeviceArray> arrays;  // in plan order

  const DeviceArray* arrayOf(const std::string& field) const;
  // Every name the generated code declares in the struct's scope.
  std::vector<std::string> declaredNames() const;
};

// Checks `plan` against the struct's fields (each in exactly one cluster, cluster names usable as
// identifiers) and derives the device form. Errors name the plan's struct and field.
llvm::Expected<DeviceLayout> makeDeviceLayout(const StructPlan& plan, const std::string& baseName,
                                              const std::vector<std::string>& fields);

}  // namespace relayout::rw
