// Whole elements of a device array. A copy of one (`P q = p[i];`, `auto q = p[i];`, `q = p[i];`,
// `f(p[i])` by value or by const reference, `const P& r = p[i]`, `p[i].get()` with a const member
// function) gathers its fields with `relayoutLoad(p, i)`, which returns the original struct by
// value: the callee reads the same values. A statement `p[i] = q;` scatters q's fields with
// `relayoutStore(p, i, q)`. An element bound to a non-const reference becomes a struct of
// references to its fields (ElementRefs.cpp). Its address, `&p[i]`, is the view `p + i`
// (UseCollector::entityExpr).
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

bool UseCollector::elementCall(const clang::ArraySubscriptExpr* subscript, const std::string& helper,
                               std::vector<Edit>& out) {
  auto baseEnd = edits_.written(subscript->getBase()->getEndLoc());
  const clang::Expr* index = subscript->getIdx();
  auto indexBegin = edits_.written(index->getBeginLoc()), indexEnd = edits_.written(index->getEndLoc());
  auto rbracket = edits_.written(subscript->getRBracketLoc());
  if (!baseEnd || !indexBegin || !indexEnd || !rbracket) return false;
  clang::SourceLocation afterBase = baseEnd->getLocWithOffset(edits_.tokenLength(*baseEnd));
  clang::SourceLocation afterIndex = indexEnd->getLocWithOffset(edits_.tokenLength(*indexEnd));
  auto open = edits_.between(afterBase, *indexBegin);
  auto close = edits_.between(afterIndex, rbracket->getLocWithOffset(1));
  if (!open || open->trim() != "[" || !close || close->trim() != "]") return false;
  std::vector<Edit> mine;
  if (!edits_.insertBefore(subscript->getBeginLoc(), helper + "(", mine)) return false;
  mine.push_back(edits_.rawEdit(afterBase, open->size(), ", "));
  mine.push_back(edits_.rawEdit(afterIndex, close->size(), ")"));
  out.insert(out.end(), mine.begin(), mine.end());
  return true;
}

const clang::ParmVarDecl* parameterOf(const clang::CallExpr* call, const clang::Stmt* arg) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee) return nullptr;
  unsigned first = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee) ? 1 : 0;
  for (unsigned i = first; i < call->getNumArgs(); ++i)
    if (call->getArg(i)->IgnoreParens() == arg || call->getArg(i) == arg)
      return i - first < callee->getNumParams() ? callee->getParamDecl(i - first) : nullptr;
  return nullptr;
}

static bool isConstLvalueRef(clang::QualType type) {
  return type->isLValueReferenceType() && type->getPointeeType().isConstQualified();
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
  const clang::Decl* parentDecl = nullptr;
  if (!parent) {
    auto parents = context_.getParents(*child);
    if (!parents.empty()) parentDecl = parents[0].get<clang::Decl>();
    if (!parentDecl) return false;
  }
  bool load = false, store = false, reference = false;
  const clang::Expr* value = nullptr;  // what a store writes
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent);
  const clang::ParmVarDecl* param = call ? parameterOf(call, child) : nullptr;
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(parentDecl);
  if (const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(parent)) {
    load = construct->getNumArgs() == 1 && construct->getConstructor()->isCopyOrMoveConstructor();
  } else if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(parent);
             op && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2) {
    if (op->getArg(1)->IgnoreParenImpCasts() == subscript) load = true;
    else if (op->getArg(0)->IgnoreParens() == subscript) {
      // A statement: its value is not used. `p[i] = f(...)` wraps the statement in the cleanup of f's
      // temporary, which is not a use.
      const clang::Stmt* user = parentOf(op);
      while (user && llvm::isa<clang::ExprWithCleanups>(user)) user = parentOf(user);
      store = !user || !llvm::isa<clang::Expr>(user);
      value = op->getArg(1);
    }
  } else if (param && param->getType()->isLValueReferenceType()) {
    // Bound to a reference parameter: a const one reads a gathered copy, a non-const one a proxy.
    (isConstLvalueRef(param->getType()) ? load : reference) = true;
  } else if (var && var->getInit() && var->getType()->isLValueReferenceType()) {
    (isConstLvalueRef(var->getType()) ? load : reference) = true;
  } else if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent)) {
    // `p[i].get()`: a const member function reads a gathered copy.
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
    load = method && method->isConst() && !method->isStatic();
  } else if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(parent);
             op && op->getNumArgs() >= 1 && op->getArg(0)->IgnoreParens() == child) {
    // `p[i] + q` through a const member operator.
    const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
    load = method && method->isConst() && !method->isStatic();
  }
  if (!load && !store && !reference) return false;
  const auto* record = llvm::dyn_cast_or_null<clang::CXXRecordDecl>(info.planned->definition);
  if (load && record && !record->hasDefaultConstructor()) return false;  // relayoutLoad starts from `S v;`
  if (!afterDefinition(info, subscript->getBeginLoc())) return false;

  std::vector<Edit> out;
  auto fail = [&] {
    refuse(info, subscript->getExprLoc(), "this whole element of '" + namedDecl(ref)->getNameAsString() +
           "' is not written out in the file (it comes from a macro body)", subscript->getSourceRange());
    consume(ref);
    return true;
  };
  if (reference) {
    auto why = rewriteElementRef(subscript, parent, parentDecl, info, out);
    consume(ref);
    if (why) return refuse(info, why->second.getBegin(), why->first, why->second), true;
    addEdits(info, out, kRef);
    return true;
  }
  if (load) {
    // p[i] -> relayoutLoad(p, i)
    if (!elementCall(subscript, "relayoutLoad", out)) return fail();
  } else {
    // p[i] = v -> relayoutStore(p, i, v)
    auto indexEnd = edits_.written(subscript->getIdx()->getEndLoc());
    auto valueBegin = edits_.written(value->getBeginLoc());
    auto baseEnd = edits_.written(subscript->getBase()->getEndLoc());
    auto indexBegin = edits_.written(subscript->getIdx()->getBeginLoc());
    if (!indexEnd || !valueBegin || !baseEnd || !indexBegin) return fail();
    clang::SourceLocation afterBase = baseEnd->getLocWithOffset(edits_.tokenLength(*baseEnd));
    auto open = edits_.between(afterBase, *indexBegin);
    if (!open || open->trim() != "[") return fail();
    if (!edits_.insertBefore(subscript->getBeginLoc(), "relayoutStore(", out)) return fail();
    out.push_back(edits_.rawEdit(afterBase, open->size(), ", "));
    clang::SourceLocation afterIndex = indexEnd->getLocWithOffset(edits_.tokenLength(*indexEnd));
    if (!edits_.insertAfter(value->getEndLoc(), ")", out)) return fail();
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
