#include "relayout/clangsupport/RowMajorIndex.h"

#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"

#include <clang/AST/Decl.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/Stmt.h>

namespace relayout {
namespace {

// Past parentheses and conversions that keep an integer's value: reads of a variable, and
// integral casts to a type at least as wide.
const clang::Expr* stripIntegral(clang::ASTContext& context, const clang::Expr* e) {
  while (true) {
    e = e->IgnoreParens();
    const auto* cast = llvm::dyn_cast<clang::CastExpr>(e);
    if (!cast) return e;
    const clang::Expr* sub = cast->getSubExpr();
    switch (cast->getCastKind()) {
      case clang::CK_LValueToRValue:
      case clang::CK_NoOp:
        e = sub;
        continue;
      case clang::CK_IntegralCast:
        if (!e->getType()->isIntegerType() || !sub->getType()->isIntegerType() ||
            context.getTypeSize(e->getType()) < context.getTypeSize(sub->getType()))
          return e;
        e = sub;
        continue;
      default:
        return e;
    }
  }
}

std::optional<int64_t> constantValue(clang::ASTContext& context, const clang::Expr* e) {
  if (e->isValueDependent() || e->isTypeDependent()) return std::nullopt;
  clang::Expr::EvalResult result;
  if (!e->EvaluateAsInt(result, context)) return std::nullopt;
  return result.Val.getInt().getExtValue();
}

const clang::VarDecl* variableOf(clang::ASTContext& context, const clang::Expr* e) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(stripIntegral(context, e));
  return ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
}

// Whether every use of `var` in `stmt` reads its value: no assignment, increment, address or
// reference bound to it.
bool onlyReadIn(clang::ASTContext& context, const clang::Stmt* stmt, const clang::VarDecl* var) {
  for (const clang::DeclRefExpr* ref : referencesTo(stmt, var)) {
    const clang::Stmt* node = ref;
    const auto* cast = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(climbPast(context, node, isParen));
    if (!cast || cast->getCastKind() != clang::CK_LValueToRValue) return false;
  }
  return true;
}

// Whether `loop` counts `var` up from a constant >= 0 while it stays below `width`.
bool countsBelow(clang::ASTContext& context, const clang::ForStmt* loop, const clang::VarDecl* var, uint64_t width) {
  std::optional<int64_t> start;
  if (const auto* decl = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
    if (decl->isSingleDecl() && decl->getSingleDecl() == var && var->getInit())
      start = constantValue(context, var->getInit());
  } else if (const auto* assign = llvm::dyn_cast_or_null<clang::BinaryOperator>(loop->getInit())) {
    if (assign->getOpcode() == clang::BO_Assign && variableOf(context, assign->getLHS()) == var)
      start = constantValue(context, assign->getRHS());
  }
  if (!start || *start < 0) return false;

  const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(loop->getCond());
  if (!cond || variableOf(context, cond->getLHS()) != var) return false;
  std::optional<int64_t> bound = constantValue(context, cond->getRHS());
  if (!bound) return false;
  if (cond->getOpcode() == clang::BO_LT) {
    if (*bound > int64_t(width)) return false;
  } else if (cond->getOpcode() == clang::BO_LE) {
    if (*bound >= int64_t(width)) return false;
  } else {
    return false;
  }

  const clang::Expr* inc = loop->getInc();
  bool up = false;
  if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc))
    up = unary->isIncrementOp() && variableOf(context, unary->getSubExpr()) == var;
  else if (const auto* compound = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc))
    if (compound->getOpcode() == clang::BO_AddAssign && variableOf(context, compound->getLHS()) == var)
      if (std::optional<int64_t> step = constantValue(context, compound->getRHS())) up = *step > 0;
  return up && onlyReadIn(context, loop->getBody(), var);
}

// Whether `column` lies in [0, width) where it is evaluated.
bool columnInRange(clang::ASTContext& context, const clang::Expr* column, uint64_t width) {
  if (std::optional<int64_t> value = constantValue(context, column)) return *value >= 0 && *value < int64_t(width);
  const clang::VarDecl* var = variableOf(context, column);
  if (!var || !var->getType()->isIntegerType()) return false;
  // Up the enclosing statements, through the declaration an initializer belongs to, to the first
  // for loop whose body holds the column and whose counter is the variable.
  clang::DynTypedNode node = clang::DynTypedNode::create(*column);
  while (true) {
    clang::DynTypedNodeList parents = context.getParents(node);
    if (parents.empty()) return false;
    const clang::DynTypedNode& parent = parents[0];
    if (parent.get<clang::FunctionDecl>() || parent.get<clang::TranslationUnitDecl>()) return false;
    if (const auto* loop = parent.get<clang::ForStmt>()) {
      const clang::Stmt* child = node.get<clang::Stmt>();
      if (child && child == loop->getBody() && countsBelow(context, loop, var, width)) return true;
    }
    node = parent;
  }
}

}  // namespace

std::optional<RowMajorIndex> rowMajorIndexThroughLocal(clang::ASTContext& context, const clang::Expr* index) {
  if (auto form = rowMajorIndex(context, index)) return form;
  const clang::VarDecl* local = variableOf(context, index);
  if (!local || !local->isLocalVarDecl() || !local->getInit()) return std::nullopt;
  const auto* function = llvm::dyn_cast_or_null<clang::FunctionDecl>(local->getParentFunctionOrMethod());
  if (!function || !onlyReadIn(context, function->getBody(), local)) return std::nullopt;
  return rowMajorIndex(context, local->getInit());
}

std::optional<RowMajorIndex> rowMajorIndex(clang::ASTContext& context, const clang::Expr* index) {
  const auto* add = llvm::dyn_cast<clang::BinaryOperator>(stripIntegral(context, index));
  if (!add || add->getOpcode() != clang::BO_Add) return std::nullopt;
  for (auto [product, column] : {std::pair{add->getLHS(), add->getRHS()}, std::pair{add->getRHS(), add->getLHS()}}) {
    const auto* mul = llvm::dyn_cast<clang::BinaryOperator>(stripIntegral(context, product));
    if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
    for (auto [row, factor] : {std::pair{mul->getLHS(), mul->getRHS()}, std::pair{mul->getRHS(), mul->getLHS()}}) {
      std::optional<int64_t> width = constantValue(context, factor);
      if (!width || *width < 2 || constantValue(context, row)) continue;
      if (columnInRange(context, column, uint64_t(*width))) return RowMajorIndex{uint64_t(*width), row, column};
    }
  }
  return std::nullopt;
}

}  // namespace relayout
