// A function's identity across edits elsewhere: a hash of its own tokens, so that comments, white
// space and every other function can change while a profile still describes this one.
#pragma once

#include <clang/AST/Decl.h>

#include <string>

namespace relayout {

// 16 hex digits of the SHA-256 of the function's tokens as written (the template's pattern for an
// instantiation), from its first token to its closing brace, each token's spelling separated by
// one space. Empty when the function's text is not in one file (written by a macro).
std::string functionTokenHash(const clang::FunctionDecl& function);

}  // namespace relayout
