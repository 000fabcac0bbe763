// Null tests of a device array: `if (!p)`, `if (p)`, `p && ...`, `p ? a : b`, `p == nullptr`,
// `p != NULL`. Every array of the device struct is allocated, set and freed together (relayoutMalloc,
// `= {}`), so the struct is null exactly when its first array is: `!p` becomes `!p.x`.
#include "UseCollector.h"

namespace relayout::rw {

bool UseCollector::rewriteNullTest(const clang::Expr* pointer, const clang::Stmt* test) {
  const clang::Expr* ref = directRef(pointer);
  const EntityInfo* info = entityOfRef(ref);
  if (!info || !info->planned->layout || info->planned->layout->arrays.empty()) return false;
  consume(ref);
  std::vector<Edit> out;
  if (!edits_.insertAfter(ref->getEndLoc(), "." + info->planned->layout->arrays.front().member, out))
    return refuse(*info, ref->getExprLoc(),
                  "this null test is not written out in the file (it comes from a macro body)", test->getSourceRange()),
           true;
  addEdits(*info, out);
  return true;
}

bool UseCollector::VisitImplicitCastExpr(clang::ImplicitCastExpr* cast) {
  if (cast->getCastKind() == clang::CK_PointerToBoolean) rewriteNullTest(cast->getSubExpr(), cast);
  return true;
}

bool UseCollector::rewriteNullComparison(const clang::BinaryOperator* binary) {
  if (binary->getOpcode() != clang::BO_EQ && binary->getOpcode() != clang::BO_NE) return false;
  auto isNull = [&](const clang::Expr* e) {
    return e->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull) != clang::Expr::NPCK_NotNull;
  };
  if (isNull(binary->getRHS())) return rewriteNullTest(binary->getLHS(), binary);
  if (isNull(binary->getLHS())) return rewriteNullTest(binary->getRHS(), binary);
  return false;
}

}  // namespace relayout::rw
