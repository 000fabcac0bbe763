// Whole elements of a device array: a copy of one (`P q = p[i];`, `auto q = p[i];`, `q = p[i];`,
// `f(p[i])` by value) gathers its fields with `relayoutLoad(p, i)`, which returns the original
// struct by value, so the copy stays a copy; a statement `p[i] = q;` scatters q's fields with
// `relayoutStore(p, i, q)`. A reference to an element (`P& r = p[i]`, `&p[i]`) has no counterpart
// in the new layout and is refused by describeUse.
#include "UseCollector.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>

namespace relayout::rw {

const clang::Stmt* UseCollector::parentOf(const clang::Stmt* node) {
  auto parents = context_.getParents(*node);
  return parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
}

bool UseCollector::VisitArraySubscriptExpr(clang::ArraySubscriptExpr* subscript) {
  const clang::Expr* ref = directRef(subscript->getBase());
  const EntityInfo* info = entityOfRef(ref);
  if (!info || !info->planned->layout || !subscript->getType()->isRecordType()) return true;
  rewriteWholeElement(subscript, ref, *info);
  return true;
}

bool UseCollector::rewriteWholeElement(const clang::ArraySubscriptExpr* subscript, const clang::Expr* ref,
                                       const EntityInfo& info) {
  // Up through parentheses and no-op conversions to what uses the element.
  const clang::Stmt* child = subscript;
  const clang::Stmt* parent = parentOf(child);
  while (parent && (llvm::isa<clang::ParenExpr>(parent) || llvm::isa<clang::MaterializeTemporaryExpr>(parent) ||
                    (llvm::isa<clang::ImplicitCastExpr>(parent) &&
                     llvm::cast<clang::ImplicitCastExpr>(parent)->getCastKind() == clang::CK_NoOp))) {
    child = parent;
    parent = parentOf(parent);
  }
  if (!parent) return false;
  bool load = false, store = false;
  const clang::Expr* value = nullptr;  // what a store writes
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent)) {
    load = construct->getNumArgs() == 1 && construct->getConstructor()->isCopyOrMoveConstructor();
  } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(parent);
             op && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2) {
    if (op->getArg(1)->IgnoreParenImpCasts() == subscript) load = true;
    else if (op->getArg(0)->IgnoreParens() == subscript) {
      const clang::Stmt* user = parentOf(op);
      store = !user || !llvm::isa<clang::Expr>(user);  // a statement: its value is not used
      value = op->getArg(1);
    }
  }
  if (!load && !store) return false;
  const auto* record = llvm::dyn_cast_or_null<clang::CXXRecordDecl>(info.planned->definition);
  if (load && record && !record->hasDefaultConstructor()) return false;  // relayoutLoad starts from `S v;`

  // p[i] -> relayoutLoad(p, i); p[i] = v -> relayoutStore(p, i, v).
  auto baseEnd = edits_.written(subscript->getBase()->getEndLoc());
  auto index = subscript->getIdx();
  auto indexBegin = edits_.written(index->getBeginLoc()), indexEnd = edits_.written(index->getEndLoc());
  auto rbracket = edits_.written(subscript->getRBracketLoc());
  std::vector<Edit> out;
  auto fail = [&] {
    refuse(info, subscript->getExprLoc(), "this whole element of '" + namedDecl(ref)->getNameAsString() +
           "' is not written out in the file (it comes from a macro body)", subscript->getSourceRange());
    consume(ref);
    return true;
  };
  if (!baseEnd || !indexBegin || !indexEnd || !rbracket) return fail();
  if (!afterDefinition(info, subscript->getBeginLoc())) return false;
  clang::SourceLocation afterBase = baseEnd->getLocWithOffset(edits_.tokenLength(*baseEnd));
  auto open = edits_.between(afterBase, *indexBegin);
  if (!open || open->trim() != "[") return fail();
  if (!edits_.insertBefore(subscript->getBeginLoc(), store ? "relayoutStore(" : "relayoutLoad(", out)) return fail();
  out.push_back(edits_.rawEdit(afterBase, open->size(), ", "));
  clang::SourceLocation afterIndex = indexEnd->getLocWithOffset(edits_.tokenLength(*indexEnd));
  if (load) {
    auto close = edits_.between(afterIndex, rbracket->getLocWithOffset(1));
    if (!close) return fail();
    out.push_back(edits_.rawEdit(afterIndex, close->size(), ")"));
  } else {
    auto valueBegin = edits_.written(value->getBeginLoc());
    if (!valueBegin || !edits_.insertAfter(value->getEndLoc(), ")", out)) return fail();
    auto middle = edits_.between(afterIndex, *valueBegin);  // "] = "
    if (!middle) return fail();
    std::string gap = middle->str();
    gap.erase(std::remove_if(gap.begin(), gap.end(), [](char c) { return c == ' ' || c == '\t'; }), gap.end());
    if (gap != "]=") return fail();
    out.push_back(edits_.rawEdit(afterIndex, middle->size(), ", "));
  }
  consume(ref);
  addEdits(info, out, load ? unsigned(kLoad) : unsigned(kStore));
  return true;
}

}  // namespace relayout::rw
