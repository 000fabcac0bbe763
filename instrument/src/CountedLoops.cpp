// Loop headers: counted loops (Collection.h, CountedHeader), `for` loops whose trip count is known
// when they start, from the header alone, and the loops that can be thinned (RawLoop::thinnable). A
// long counted loop runs hooked for a prefix of its iterations and plain for the rest, the trip
// count giving the prefix's weight; another loop runs hooked in fewer and fewer of its iterations
// (LoopPrefixes, FileUnion.h).
#include "SiteCollector.h"

#include <clang/AST/ExprCXX.h>
#include <clang/Analysis/Analyses/ExprMutationAnalyzer.h>
#include <clang/Lex/Lexer.h>

namespace relayout {

namespace {

// The local integer variable `e` names, if it is one: the only kind of loop variable a trip count
// is computed for.
const clang::VarDecl* localInteger(const clang::Expr* e) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->hasLocalStorage()) return nullptr;
  const clang::QualType type = var->getType();
  if (type->isReferenceType() || type.isVolatileQualified() || !type->isIntegerType()) return nullptr;
  return var;
}

// CUDA's index and size variables (`blockDim.x`): the same in every iteration of any loop.
bool builtinIndex(const clang::PseudoObjectExpr* e) {
  const auto* property = llvm::dyn_cast<clang::MSPropertyRefExpr>(e->getSyntacticForm()->IgnoreParens());
  if (!property) return false;
  const clang::Expr* object = property->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto* opaque = llvm::dyn_cast<clang::OpaqueValueExpr>(object)) object = opaque->getSourceExpr();
  const auto* base = object ? llvm::dyn_cast<clang::DeclRefExpr>(object->IgnoreParenImpCasts()) : nullptr;
  if (!base) return false;
  const std::string name = base->getDecl()->getNameAsString();
  return name == "blockDim" || name == "gridDim" || name == "threadIdx" || name == "blockIdx";
}

// Whether `e` has one value in every iteration of a loop whose body `mutation` looks into, and
// computing it changes nothing: constants, template arguments, CUDA's index variables and local
// variables the body leaves alone, under operators without side effects. No memory is read: the
// body could write it.
bool invariant(const clang::Expr* e, clang::ExprMutationAnalyzer& mutation) {
  e = e->IgnoreParens();
  if (llvm::isa<clang::IntegerLiteral, clang::CharacterLiteral, clang::CXXBoolLiteralExpr,
                clang::UnaryExprOrTypeTraitExpr>(e))
    return true;
  if (const auto* subst = llvm::dyn_cast<clang::SubstNonTypeTemplateParmExpr>(e))
    return invariant(subst->getReplacement(), mutation);
  if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(e)) {
    const clang::CastKind kind = cast->getCastKind();
    return (kind == clang::CK_IntegralCast || kind == clang::CK_NoOp || kind == clang::CK_LValueToRValue ||
            kind == clang::CK_IntegralToBoolean) &&
           invariant(cast->getSubExpr(), mutation);
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const clang::UnaryOperatorKind op = unary->getOpcode();
    return (op == clang::UO_Minus || op == clang::UO_Plus || op == clang::UO_Not || op == clang::UO_LNot) &&
           invariant(unary->getSubExpr(), mutation);
  }
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(e))
    return !binary->isAssignmentOp() && binary->getOpcode() != clang::BO_Comma &&
           invariant(binary->getLHS(), mutation) && invariant(binary->getRHS(), mutation);
  if (const auto* choice = llvm::dyn_cast<clang::ConditionalOperator>(e))
    return invariant(choice->getCond(), mutation) && invariant(choice->getTrueExpr(), mutation) &&
           invariant(choice->getFalseExpr(), mutation);
  if (const auto* pseudo = llvm::dyn_cast<clang::PseudoObjectExpr>(e)) return builtinIndex(pseudo);
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const clang::ValueDecl* decl = ref->getDecl();
    if (llvm::isa<clang::EnumConstantDecl, clang::NonTypeTemplateParmDecl>(decl)) return true;
    const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!var) return false;
    const clang::QualType type = var->getType();
    if (type->isReferenceType() || type.isVolatileQualified() || !type->isIntegralOrEnumerationType()) return false;
    if (var->hasLocalStorage()) return !mutation.isMutated(var);
    return type.isConstQualified() && var->hasInit();  // `constexpr int TILE = 256`
  }
  return false;
}

// The comparison `VAR OP BOUND` with VAR on the left, for `BOUND OP VAR` too.
unsigned comparisonCode(clang::BinaryOperatorKind op, bool varOnLeft) {
  switch (op) {
    case clang::BO_LT:
      return varOnLeft ? 0 : 2;
    case clang::BO_LE:
      return varOnLeft ? 1 : 3;
    case clang::BO_GT:
      return varOnLeft ? 2 : 0;
    default:
      return varOnLeft ? 3 : 1;  // BO_GE
  }
}

}  // namespace

std::optional<CountedHeader> SiteCollector::countedHeader(const clang::ForStmt* loop, const std::string& file) {
  if (!loop->getCond() || !loop->getInc() || loop->getConditionVariable() || !loop->getBody()) return std::nullopt;
  if (attributed_.count(loop)) return std::nullopt;  // `#pragma unroll`: it must stay right before this loop
  clang::ExprMutationAnalyzer mutation(*loop->getBody(), context_);
  // The variable and step, from the increment.
  const clang::Expr* inc = loop->getInc()->IgnoreParens();
  const clang::VarDecl* var = nullptr;
  const clang::Expr* step = nullptr;
  bool up = true;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(inc)) {
    if (!unary->isIncrementDecrementOp()) return std::nullopt;
    var = localInteger(unary->getSubExpr());
    up = unary->isIncrementOp();
  } else if (const auto* assign = llvm::dyn_cast<clang::CompoundAssignOperator>(inc)) {
    if (assign->getOpcode() != clang::BO_AddAssign && assign->getOpcode() != clang::BO_SubAssign) return std::nullopt;
    var = localInteger(assign->getLHS());
    step = assign->getRHS();
    up = assign->getOpcode() == clang::BO_AddAssign;
    if (!step->getType()->isIntegerType() || !invariant(step, mutation)) return std::nullopt;
  }
  if (!var || mutation.isMutated(var)) return std::nullopt;
  // The bound, from the condition.
  const auto* compare = llvm::dyn_cast<clang::BinaryOperator>(loop->getCond()->IgnoreParenImpCasts());
  if (!compare || !compare->isRelationalOp()) return std::nullopt;
  const bool varOnLeft = localInteger(compare->getLHS()) == var;
  if (!varOnLeft && localInteger(compare->getRHS()) != var) return std::nullopt;
  const clang::Expr* bound = varOnLeft ? compare->getRHS() : compare->getLHS();
  if (!invariant(bound, mutation)) return std::nullopt;

  // The bound and step as written in the loop's file, to be repeated in its hooked copy.
  auto spelledHere = [&](const clang::Expr* e) -> std::optional<std::string> {
    auto spelled = spelledRange(e->getSourceRange());
    if (!spelled || spelled->place.file != file) return std::nullopt;
    return spelled->text.str();
  };
  CountedHeader header;
  auto boundText = spelledHere(bound);
  std::optional<std::string> stepText = step ? spelledHere(step) : std::string("1");
  if (!boundText || !stepText) return std::nullopt;
  header.variable = var->getNameAsString();
  header.bound = *boundText;
  header.step = std::string(up ? "" : "-") + "(long long)(" + *stepText + ")";
  header.comparison = comparisonCode(compare->getOpcode(), varOnLeft);
  return header;
}

void SiteCollector::noteLoopHeader(const clang::Stmt* loop) {
  if (!function_ || inConstexpr_) return;
  std::optional<FilePlace> place = projectPlace(sm_.getExpansionLoc(loop->getBeginLoc()));
  if (!place) return;
  auto found = files_[place->file].loops.find(place->offset);
  if (found == files_[place->file].loops.end()) return;
  RawLoop& raw = found->second;
  const auto* forLoop = llvm::dyn_cast<clang::ForStmt>(loop);
  const auto* whileLoop = llvm::dyn_cast<clang::WhileStmt>(loop);
  std::optional<CountedHeader> header = forLoop ? countedHeader(forLoop, place->file) : std::nullopt;
  // Thinnable: the statement can be wrapped in braces (no attribute must stay right before it) and
  // its condition and increment, if any, copied as expressions.
  const clang::Expr* cond = forLoop ? forLoop->getCond() : whileLoop ? whileLoop->getCond() : nullptr;
  const clang::Expr* inc = forLoop ? forLoop->getInc() : nullptr;
  const bool declares =
      (forLoop && forLoop->getConditionVariable()) || (whileLoop && whileLoop->getConditionVariable());
  auto rangeOf = [&](const clang::Expr* e) -> std::optional<std::pair<unsigned, unsigned>> {
    auto range = e ? spelledRange(e->getSourceRange()) : std::nullopt;
    if (!range || range->place.file != place->file) return std::nullopt;
    return std::make_pair(range->place.offset, range->end);
  };
  const auto condition = rangeOf(cond), increment = rangeOf(inc);
  if (!condition || !increment) header.reset();  // the plain rest repeats them as written
  const bool thinnable =
      (forLoop || whileLoop) && !attributed_.count(loop) && !declares && (!cond || condition) && (!inc || increment);
  // Every instantiation must see the same loop: one text serves them all.
  if (!raw.walked) {
    raw.counted = std::move(header);
    raw.thinnable = thinnable;
    raw.condition = condition;
    raw.increment = increment;
  } else {
    if (!header || !raw.counted || !(*header == *raw.counted)) raw.counted.reset();
    raw.thinnable = raw.thinnable && thinnable && raw.condition == condition && raw.increment == increment;
  }
  raw.walked = true;
}

}  // namespace relayout
