// Describes a struct type the way the site map and the runtime see it: size, alignment and the
// byte offset of every field, from Clang's record layout.
#pragma once

#include "relayout/core/SiteMap.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <optional>
#include <string>

namespace relayout {

// The name users wrote: the qualified name, or the typedef name of an anonymous struct.
std::string recordName(const clang::RecordDecl* record);

// True for struct/class types defined in the user's own files (not unions, not system headers such
// as CUDA's float3): the types whose layout relayout may change.
bool isLayoutCandidate(const clang::RecordDecl* record, const clang::SourceManager& sm);

// The first field of `record` whose name is not an ASCII identifier, if any: site maps and plans
// name fields so (docs/formats.md), so such a struct is not instrumented.
std::optional<std::string> nonAsciiField(const clang::RecordDecl* record);

StructInfo describeRecord(const clang::RecordDecl* record, clang::ASTContext& context);

// file:line:col of a location, with the file as the compiler saw it.
SourceLocation presumedLocation(clang::SourceLocation loc, const clang::SourceManager& sm);

}  // namespace relayout
