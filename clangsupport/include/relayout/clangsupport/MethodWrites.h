// Which fields of its own object a member function can write. A rewrite that calls a non-const
// member function on a gathered copy of an element scatters back only those: storing every field
// would add stores the original never made (and keep loads nvcc could otherwise drop).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>

#include <optional>
#include <set>

namespace relayout {

// The fields of the object `method` is called on that it may write (assigned, incremented, bound
// to a non-const reference or pointer, called with a non-const member function), following the
// non-virtual member functions it calls on the same object. Nullopt when that cannot be told:
// `this` used other than to name a member (`*this`, passed on), a called member function without
// a body or virtual, or a field of a base class.
std::optional<std::set<const clang::FieldDecl*>> fieldsWrittenOnThis(clang::ASTContext& context,
                                                                     const clang::CXXMethodDecl* method);

}  // namespace relayout
