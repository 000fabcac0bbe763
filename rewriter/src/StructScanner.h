// Finds the definitions of the plan's structs in one translation unit, records them for the plan
// check and the device-layout insertion, and refuses structs whose shape this version cannot give
// a device layout (unions, bases, bit-fields, arrays, over-aligned or const fields, ...).
#pragma once

#include "DeviceLayout.h"
#include "Diagnostics.h"
#include "Facts.h"
#include "SourceEdits.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <map>
#include <optional>

namespace relayout::rw {

// A struct the plan lays out as SoA or clusters, as this translation unit sees it.
struct PlannedStruct {
  const StructPlan* plan = nullptr;
  const clang::RecordDecl* definition = nullptr;  // null when this unit does not define it
  std::optional<DeviceLayout> layout;              // empty when the plan does not fit the fields
  clang::SourceLocation definitionEnd;             // the device layout is inserted after this
};

// The name users wrote: the qualified name, or the typedef name of an anonymous struct (the same
// rule as the site map's).
std::string recordName(const clang::RecordDecl* record);

// A field that code outside its struct cannot name (private or protected): the generated helpers
// reach the struct's fields through `<device>Fields` (StructDef::privateFields).
bool keepsPrivate(const clang::FieldDecl* field);

// Whether clang's spelling of a type names something code cannot write: "(unnamed union at ...)".
bool hasUnnamedSpelling(const std::string& spelled);
// "sim::P::u": the member as generated code names it from any scope, for `decltype(sim::P::u)`.
std::string memberPath(const clang::FieldDecl* field);

class StructScanner {
 public:
  StructScanner(clang::ASTContext& context, const Plan& plan, SourceEdits& edits, DiagRenderer& diags,
                ProgramFacts& facts)
      : context_(context), plan_(plan), edits_(edits), diags_(diags), facts_(facts) {}

  void scan();
  // The name the plan gives a record: its recordName, or a typedef's name for it (`typedef struct
  // _N {...} N;` planned as "N"); empty when the plan names neither.
  std::string planName(const clang::RecordDecl* record) const;
  // The planned (non-AoS) struct a record is, or null.
  const PlannedStruct* planned(const clang::RecordDecl* record);

 private:
  void addDefinition(const clang::RecordDecl* record, const StructPlan& plan);
  void checkShape(const clang::RecordDecl* record, const DeviceLayout& layout, StructDef& def);
  bool findInsertion(const clang::RecordDecl* record, StructDef& def, clang::SourceLocation& end);
  unsigned includePoint(const clang::RecordDecl* record, clang::SourceLocation brace);
  FieldFacts describeField(const clang::FieldDecl* field);

  clang::ASTContext& context_;
  const Plan& plan_;
  SourceEdits& edits_;
  DiagRenderer& diags_;
  ProgramFacts& facts_;
  std::map<std::string, PlannedStruct> byName_;
  std::map<const clang::RecordDecl*, const PlannedStruct*> byRecord_;
  // Canonical record -> the typedefs naming it (`typedef struct _N {...} N;`).
  std::map<const clang::RecordDecl*, std::vector<const clang::TypedefNameDecl*>> typedefs_;
};

}  // namespace relayout::rw
