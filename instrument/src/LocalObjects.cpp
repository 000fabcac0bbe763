// Calls whose callee's hooks can see only local objects (Collection.h, RawCall::localObjects).
#include "SiteCollector.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>

#include <set>

namespace relayout {

namespace {

// The variable an lvalue names through `.` alone (`mine`, `mine.pos`); none through `->`, `[]`, `*`
// or a call.
const clang::ValueDecl* namedObject(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  while (const auto* member = llvm::dyn_cast<clang::MemberExpr>(e)) {
    if (member->isArrow()) return nullptr;
    e = member->getBase()->IgnoreParenImpCasts();
  }
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
  return ref ? ref->getDecl() : nullptr;
}

// A variable of the function's own frame that holds its object: not a reference or a pointer, not
// static (a `__shared__` one is).
bool isLocalObject(const clang::ValueDecl* decl) {
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(decl);
  return var && var->hasLocalStorage() && !var->getType()->isReferenceType() && !var->getType()->isPointerType();
}

class LocalObjectsOnly {
 public:
  explicit LocalObjectsOnly(std::set<const clang::ParmVarDecl*> localParameters)
      : localParameters_(std::move(localParameters)) {}

  // Conservative: anything that could reach memory other than these objects fails, and so do
  // loops (their counts would be lost with the plain copy).
  bool holds(const clang::Stmt* s) const {
    if (!s) return true;
    if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt, clang::CXXThisExpr,
                  clang::ArraySubscriptExpr, clang::LambdaExpr, clang::GotoStmt, clang::AsmStmt>(s))
      return false;
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(s); unary && unary->getOpcode() == clang::UO_Deref)
      return false;
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(s); member && !local(namedObject(member))) return false;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      // A pointer, a reference that is not to a local object, or a variable outside the frame
      // (a global struct, a __constant__ or __shared__ array) may reach memory that hooks classify.
      if (var && (var->getType()->isPointerType() || var->getType()->isArrayType() || !local(var))) return false;
    }
    for (const clang::Stmt* child : s->children())
      if (!holds(child)) return false;
    return true;
  }

 private:
  bool local(const clang::ValueDecl* decl) const {
    if (const auto* param = llvm::dyn_cast_or_null<clang::ParmVarDecl>(decl); param && localParameters_.count(param))
      return true;
    return isLocalObject(decl);
  }

  std::set<const clang::ParmVarDecl*> localParameters_;
};

}  // namespace

bool reachesOnlyLocalObjects(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  const clang::FunctionDecl* definition = callee->getDefinition();
  if (!definition || !definition->hasBody() || llvm::isa<clang::CXXMethodDecl>(definition) ||
      llvm::isa<clang::CXXMemberCallExpr, clang::CXXOperatorCallExpr>(call) || definition->isVariadic())
    return false;
  std::set<const clang::ParmVarDecl*> localParameters;
  for (unsigned i = 0; i < definition->getNumParams() && i < call->getNumArgs(); ++i) {
    const clang::ParmVarDecl* param = definition->getParamDecl(i);
    if (param->getType()->isReferenceType() && isLocalObject(namedObject(call->getArg(i))))
      localParameters.insert(param);
  }
  return LocalObjectsOnly(std::move(localParameters)).holds(definition->getBody());
}

}  // namespace relayout
