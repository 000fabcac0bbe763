// A planned struct's device form: the partition of its fields into arrays. SoA is the case where
// every cluster holds one field; the clustered form packs several into an aligned struct.
// Where each field is stored is core's LayoutMapping (core/LayoutMapping.h); this adds the names
// the generated code gives the arrays.
#pragma once

#include "Facts.h"

#include "relayout/core/LayoutMapping.h"
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
  uint64_t align = 1;               // of one element (placement order: decreasing alignment)
  // An array field the mapping splits by index (variable-major: one run of `stride` values per
  // index) unless the whole program keeps it per element.
  bool splittable = false;
  // Whether it is split, decided for the whole program (decideSplits); `keptWhy` says why a
  // splittable array field is not.
  bool split = false;
  std::string keptWhy;
};

struct DeviceLayout {
  std::string structName;  // as the plan names it
  std::string baseName;    // unqualified: names are derived from it
  std::string deviceName;  // "ParticleSoA" or "ParticleClusters"
  std::string constName;   // "ConstParticleSoA": the read-only view a `const Particle*` becomes
  Layout layout = Layout::SoA;
  std::vector<DeviceArray> arrays;  // in plan order
  std::string strideMember;         // the member holding the count split arrays are spaced by
  LayoutMapping storage;            // arrays[i] stores storage.clusters()[i]
  // The plan's transposition (StructPlan::transpose): element row * W + k is stored at
  // k * rows + row of every array, `rowsMember` holding rows. 0: not transposed.
  uint64_t transposeWidth = 0;
  std::string rowsMember;

  const DeviceArray* arrayOf(const std::string& field) const;
  // Every name the generated code declares in the struct's scope.
  std::vector<std::string> declaredNames() const;
};

// The struct's fields as the layout mapping takes them (their offsets in the struct play no part
// in a device form).
std::vector<MappedField> mappedFields(const std::vector<FieldFacts>& fields);

// Checks `plan` against the struct's fields (each in exactly one cluster, cluster names usable as
// identifiers) and derives the device form. Errors name the plan's struct and field.
llvm::Expected<DeviceLayout> makeDeviceLayout(const StructPlan& plan, const std::string& baseName,
                                              const std::vector<FieldFacts>& fields);

// Why a transposed layout cannot serve a program whose rewritten calls need `helpers` (Facts.h) on
// a struct with `fields`: what the program does that moves elements by their index (`p + off`, a
// memset of the first elements, ...), which the transposed places do not keep together; else nullopt.
std::optional<std::string> transposeHazard(unsigned helpers, const std::vector<FieldFacts>& fields);

// Splits every splittable array field except those in `keptWhole` (field -> why it stays per
// element): the mapping is remade with them kept whole.
void decideSplits(DeviceLayout& layout, const std::map<std::string, std::string>& keptWhole);

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
