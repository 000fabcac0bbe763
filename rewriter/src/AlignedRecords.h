// A record the plan aligns (Layout::Aligned, StructPlan::align): `alignas(N)` written after its `struct` or
// `class` keyword, and nothing else, so that nvcc may move fields a thread reads or writes together
// as one vector access (two doubles of a complex value as one 16-byte load). Its size and its
// fields' offsets stay; what can change is where the record may start, so it is refused where that
// matters: a size the alignment does not divide (it would pad), an alignment already written, a
// record held by value in another record (whose layout would move), and a pointer to it made by a
// cast from anything but an allocation (memory the cast does not align, such as a byte pool).
#pragma once

#include "Diagnostics.h"
#include "Facts.h"
#include "SourceEdits.h"
#include "relayout/core/Plan.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <map>
#include <string>

namespace relayout::rw {

// Checks one definition of a record the plan aligns; the edit goes to def.alignEdits, what stops
// it to def.refusals.
void planAlignment(clang::ASTContext& context, const clang::RecordDecl* record, const StructPlan& plan,
                   SourceEdits& edits, DiagRenderer& diags, StructDef& def);

// Refuses, in the defs given by record, the records that another record holds by value or that a
// cast makes a pointer to, anywhere in the translation unit.
void refuseAlignmentHazards(clang::ASTContext& context, const std::map<const clang::RecordDecl*, StructDef*>& aligned,
                            DiagRenderer& diags);

}  // namespace relayout::rw
