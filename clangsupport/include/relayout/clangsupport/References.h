// Where a variable is named: the one walk both Clang passes use to ask what a function does with a
// local, a parameter or a reference it binds.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <vector>

namespace relayout {

// Every expression naming `decl` within `root`, in source order: the statements and expressions
// Clang's RecursiveASTVisitor reaches, lambda bodies and expressions inside types (`sizeof(v)`,
// `decltype(v)`) among them, so that a caller that accepts only some forms of use sees every one.
std::vector<const clang::DeclRefExpr*> referencesTo(const clang::Stmt* root, const clang::ValueDecl* decl);

}  // namespace relayout
