// Climbing Clang's AST from an expression to what uses it, past the nodes that only wrap it
// (parentheses, implicit conversions): both Clang passes ask "who uses this element?" this way.
#pragma once

#include <clang/AST/ASTContext.h>
#include <llvm/ADT/STLFunctionalExtras.h>

namespace relayout {

// The statement above `node` (its first parent); null at the top, or where the parent is a
// declaration (`S e = p[i];`), which `decl` then receives when given.
const clang::Stmt* parentStmt(clang::ASTContext& context, const clang::Stmt* node, const clang::Decl** decl = nullptr);

// The first statement above `node` that `skip` does not accept (as parentStmt: null at the top or
// at a declaration), with `node` moved up to that statement's child: the expression as its user
// sees it.
const clang::Stmt* climbPast(clang::ASTContext& context, const clang::Stmt*& node,
                             llvm::function_ref<bool(const clang::Stmt*)> skip, const clang::Decl** decl = nullptr);

// What climbs usually skip.
bool isParen(const clang::Stmt* s);
bool isParenOrImplicitCast(const clang::Stmt* s);
// Parentheses and conversions that change neither value nor type (CK_NoOp).
bool isParenOrNoOpCast(const clang::Stmt* s);
// What may stand between a whole element (`p[i]`) and its user: those and a materialized temporary.
bool isElementWrapper(const clang::Stmt* s);

}  // namespace relayout
