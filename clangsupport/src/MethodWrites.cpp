#include "relayout/clangsupport/MethodWrites.h"

#include "relayout/clangsupport/AstClimb.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace relayout {
namespace {

// Whether the use of a field (`x_`, `this->x_`) only reads it: climbing past member accesses into
// it (`pos_.x`), subscripts of an array field and conversions that keep it an lvalue, it ends as a
// value read, a const member function's object, or an argument bound to a const reference.
bool onlyRead(clang::ASTContext& context, const clang::Expr* use) {
  const clang::Stmt* node = use;
  for (const clang::Stmt* parent = parentStmt(context, node); parent;
       node = parent, parent = parentStmt(context, node)) {
    if (llvm::isa<clang::ParenExpr>(parent)) continue;
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent)) {
      if (cast->getCastKind() == clang::CK_LValueToRValue) return true;
      if (cast->getCastKind() == clang::CK_NoOp || cast->getCastKind() == clang::CK_ArrayToPointerDecay) continue;
      return false;
    }
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent)) {
      if (member->getBase() != node || member->isArrow()) return false;
      if (llvm::isa<clang::FieldDecl>(member->getMemberDecl())) continue;
      const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
      return method && method->isConst();
    }
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(parent)) {
      if (subscript->getBase() != node) return true;  // the field is the index: read as a value
      continue;
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(parent)) {
      const auto* callee = call->getDirectCallee();
      if (!callee) return false;
      for (unsigned a = 0; a < call->getNumArgs(); ++a) {
        if (call->getArg(a) != node) continue;
        // An operator that is a member function takes its object as the first argument.
        unsigned shift = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee) ? 1 : 0;
        if (a < shift) return llvm::cast<clang::CXXMethodDecl>(callee)->isConst();
        if (a - shift >= callee->getNumParams()) return false;
        clang::QualType type = callee->getParamDecl(a - shift)->getType();
        return type->isReferenceType() && type->getPointeeType().isConstQualified();
      }
      return false;
    }
    return false;
  }
  return false;
}

class ThisWrites : public clang::RecursiveASTVisitor<ThisWrites> {
 public:
  ThisWrites(clang::ASTContext& context, const clang::CXXRecordDecl* record) : context_(context), record_(record) {}

  bool known = true;
  std::set<const clang::FieldDecl*> written;

  void walk(const clang::CXXMethodDecl* method) {
    const clang::FunctionDecl* definition = nullptr;
    if (!method->hasBody(definition) || method->isVirtual()) {
      known = false;
      return;
    }
    if (!visited_.insert(llvm::cast<clang::CXXMethodDecl>(definition)).second) return;
    TraverseStmt(definition->getBody());
  }

  bool VisitCXXThisExpr(clang::CXXThisExpr* self) {
    const clang::Stmt* node = self;
    const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(climbPast(context_, node, isParen));
    if (!member || member->getBase()->IgnoreParens() != self) return known = false;
    if (const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl())) {
      if (field->getParent()->getCanonicalDecl() != record_->getCanonicalDecl()) return known = false;
      if (!onlyRead(context_, member)) written.insert(field->getCanonicalDecl());
      return true;
    }
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
    const auto* call = llvm::dyn_cast_or_null<clang::CXXMemberCallExpr>(parentStmt(context_, member));
    if (!method || !call || call->getCallee()->IgnoreParens() != member) return known = false;
    if (!method->isConst() && !method->isStatic()) walk(method);
    return known;
  }

 private:
  clang::ASTContext& context_;
  const clang::CXXRecordDecl* record_;
  std::set<const clang::CXXMethodDecl*> visited_;
};

}  // namespace

std::optional<std::set<const clang::FieldDecl*>> fieldsWrittenOnThis(clang::ASTContext& context,
                                                                     const clang::CXXMethodDecl* method) {
  if (!method || method->isStatic()) return std::nullopt;
  ThisWrites visitor(context, method->getParent());
  visitor.walk(method);
  if (!visitor.known) return std::nullopt;
  return visitor.written;
}

}  // namespace relayout
