#include "relayout/clangsupport/AstClimb.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>

namespace relayout {

const clang::Stmt* parentStmt(clang::ASTContext& context, const clang::Stmt* node, const clang::Decl** decl) {
  clang::DynTypedNodeList parents = context.getParents(*node);
  if (decl) *decl = parents.empty() ? nullptr : parents[0].get<clang::Decl>();
  return parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
}

const clang::Stmt* climbPast(clang::ASTContext& context, const clang::Stmt*& node,
                             llvm::function_ref<bool(const clang::Stmt*)> skip, const clang::Decl** decl) {
  const clang::Stmt* parent = parentStmt(context, node, decl);
  while (parent && skip(parent)) {
    node = parent;
    parent = parentStmt(context, parent, decl);
  }
  return parent;
}

bool isParen(const clang::Stmt* s) { return llvm::isa<clang::ParenExpr>(s); }

bool isParenOrImplicitCast(const clang::Stmt* s) {
  return llvm::isa<clang::ParenExpr>(s) || llvm::isa<clang::ImplicitCastExpr>(s);
}

bool isParenOrNoOpCast(const clang::Stmt* s) {
  const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s);
  return llvm::isa<clang::ParenExpr>(s) || (cast && cast->getCastKind() == clang::CK_NoOp);
}

bool isElementWrapper(const clang::Stmt* s) {
  return isParenOrNoOpCast(s) || llvm::isa<clang::MaterializeTemporaryExpr>(s);
}

}  // namespace relayout
