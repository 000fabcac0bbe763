// Runtime calls on a device array that relayout refuses before any edit, each with the reason and
// what the user can write instead:
// - a byte count that is not a whole number of elements (`(n * sizeof(S) + 255) / 256 * 256` with a
//   12-byte S, `n * sizeof(S) - sizeof(float)`): the device layout holds one array per field, each
//   of bytes / sizeof(S) elements, so the helpers would fail at run time with cudaErrorInvalidValue;
// - pitched allocations (cudaMallocPitch) and 2D copies, which move rows of bytes of the original
//   layout, and copies between an array and a __device__ / __constant__ symbol (an array of S,
//   which keeps the original layout).
#include "UseCollector.h"

#include <clang/AST/RecordLayout.h>

namespace relayout::rw {

namespace {

// What relayout can tell about a byte count: whether it is provably a whole number of elements,
// and whether it is computed from sizeof of the struct at all (a count that is not, `bytes` or
// `n * 8`, is left to the helpers' run-time check).
struct ByteCount {
  bool whole = false;
  bool usesSizeof = false;
};

class ByteCountReader {
 public:
  ByteCountReader(clang::ASTContext& context, StructScanner& structs, const PlannedStruct& planned, uint64_t size)
      : context_(context), structs_(structs), planned_(planned), size_(size) {}

  ByteCount read(const clang::Expr* expr, int depth = 0) {
    ByteCount count;
    if (!expr || depth > 16) return count;
    expr = expr->IgnoreParens();
    count.usesSizeof = mentionsSizeof(expr, depth);
    clang::Expr::EvalResult value;
    if (!expr->isValueDependent() && expr->EvaluateAsInt(value, context_)) {
      count.whole = value.Val.getInt().getExtValue() % int64_t(size_) == 0;
      return count;
    }
    if (isSizeof(expr)) return count.whole = true, count;
    if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(expr))
      return cast->getType()->isIntegerType() ? read(cast->getSubExpr(), depth + 1) : count;
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
      ByteCount lhs = read(binary->getLHS(), depth + 1), rhs = read(binary->getRHS(), depth + 1);
      if (binary->getOpcode() == clang::BO_Mul) count.whole = lhs.whole || rhs.whole;
      else if (binary->getOpcode() == clang::BO_Add || binary->getOpcode() == clang::BO_Sub)
        count.whole = lhs.whole && rhs.whole;
      return count;
    }
    if (const auto* conditional = llvm::dyn_cast<clang::ConditionalOperator>(expr))
      count.whole =
          read(conditional->getTrueExpr(), depth + 1).whole && read(conditional->getFalseExpr(), depth + 1).whole;
    else if (const clang::VarDecl* var = constVariable(expr)) count.whole = read(var->getInit(), depth + 1).whole;
    return count;
  }

 private:
  bool isSizeof(const clang::Expr* expr) {
    const auto* size = llvm::dyn_cast<clang::UnaryExprOrTypeTraitExpr>(expr);
    if (!size || size->getKind() != clang::UETT_SizeOf) return false;
    clang::QualType type = size->isArgumentType() ? size->getArgumentType() : size->getArgumentExpr()->getType();
    const clang::RecordDecl* record = type->getAsRecordDecl();
    return record && structs_.planned(record) == &planned_;
  }

  // `const size_t bytes = n * sizeof(S);` is read through; a variable that may change is not.
  static const clang::VarDecl* constVariable(const clang::Expr* expr) {
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(expr);
    const auto* var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    return var && var->getType().isConstQualified() && var->getInit() ? var : nullptr;
  }

  bool mentionsSizeof(const clang::Stmt* stmt, int depth) {
    if (!stmt || depth > 16) return false;
    if (const auto* expr = llvm::dyn_cast<clang::Expr>(stmt)) {
      if (isSizeof(expr)) return true;
      if (const clang::VarDecl* var = constVariable(expr)) return mentionsSizeof(var->getInit(), depth + 1);
    }
    for (const clang::Stmt* child : stmt->children())
      if (mentionsSizeof(child, depth + 1)) return true;
    return false;
  }

  clang::ASTContext& context_;
  StructScanner& structs_;
  const PlannedStruct& planned_;
  uint64_t size_;
};

}  // namespace

bool UseCollector::refuseByteCount(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  const unsigned args = call->getNumArgs();
  // The entities the call is about (an allocation's target through its `&`) and its byte count.
  std::vector<EntityExpr> targets;
  const clang::Expr* bytes = nullptr;
  bool allocation = false;
  for (const char* name : {"cudaMalloc", "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaMallocAsync"}) {
    if (!isRuntimeCall(callee, name) || args < 2) continue;
    const clang::Expr* arg = call->getArg(0)->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg))
      arg = cast->getSubExpr()->IgnoreParenImpCasts();
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(arg);
    if (address && address->getOpcode() == clang::UO_AddrOf)
      if (const clang::Expr* ref = address->getSubExpr()->IgnoreParens(); entityOfRef(ref))
        targets.push_back({ref, entityOfRef(ref)});
    bytes = call->getArg(1), allocation = true;
  }
  bool copy = (isRuntimeCall(callee, "cudaMemcpy") || isRuntimeCall(callee, "cudaMemcpyAsync")) && args >= 4;
  bool set = (isRuntimeCall(callee, "cudaMemset") || isRuntimeCall(callee, "cudaMemsetAsync")) && args >= 3;
  if (copy || set) {
    for (unsigned i = 0; i < (copy ? 2u : 1u); ++i)
      if (EntityExpr side = entityExpr(call->getArg(i), true)) targets.push_back(side);
    bytes = call->getArg(2);
  }
  bool refused = false;
  for (const EntityExpr& target : targets) {
    const PlannedStruct& planned = *target.info->planned;
    if (!planned.layout || !planned.definition || planned.definition->isInvalidDecl() ||
        planned.definition->isDependentContext())
      continue;
    uint64_t size = context_.getASTRecordLayout(planned.definition).getSize().getQuantity();
    ByteCount count = ByteCountReader(context_, structs_, planned, size).read(bytes);
    if (count.whole || !count.usesSizeof) continue;
    const std::string& name = planned.plan->name;
    const std::string text = edits_.text(bytes->getSourceRange());
    consume(target.ref);
    if (allocation) entity(*target.info).seed = true;  // it holds device memory: the refusal keeps the layout
    refuse(*target.info, bytes->getBeginLoc(),
           "the byte count '" + (text.empty() ? std::string("...") : text) + "' of this " + callee->getNameAsString() +
               " is not a whole number of '" + name + "' elements (" + std::to_string(size) +
               " bytes each); the new layout holds one array per field of bytes / sizeof(" + name +
               ") elements, so write the count as 'count * sizeof(" + name + ")' (rounding count up is fine)",
           bytes->getSourceRange());
    refused = true;
  }
  return refused;
}

bool UseCollector::refuseUnsupportedRuntimeCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  const char* why = nullptr;
  std::vector<const clang::Expr*> args;
  bool pitched = isRuntimeCall(callee, "cudaMallocPitch") && call->getNumArgs() == 4;
  if (pitched) {
    why =
        "whose rows are padded to a pitch that one array per field cannot follow; allocate it with "
        "'cudaMalloc(&d, count * sizeof(@))' and index it as a flat array to have it rewritten";
    const clang::Expr* arg = call->getArg(0)->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg))
      arg = cast->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* address = llvm::dyn_cast<clang::UnaryOperator>(arg);
        address && address->getOpcode() == clang::UO_AddrOf)
      args.push_back(address->getSubExpr()->IgnoreParens());
  } else if (isRuntimeCall(callee, "cudaMemcpyToSymbol") || isRuntimeCall(callee, "cudaMemcpyFromSymbol") ||
             isRuntimeCall(callee, "cudaMemcpyToSymbolAsync") || isRuntimeCall(callee, "cudaMemcpyFromSymbolAsync")) {
    why =
        "which copies bytes between it and a __device__ or __constant__ symbol; relayout keeps such symbols "
        "(arrays of @) in the original layout, so copy the symbol through a host array of @ instead";
    for (const clang::Expr* arg : call->arguments()) args.push_back(arg);
  } else {
    for (const char* name : {"cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset2D", "cudaMemset2DAsync"}) {
      if (!isRuntimeCall(callee, name)) continue;
      why =
          "which copies pitched rows of bytes in the original layout; copy whole elements with 'cudaMemcpy(dst, src, "
          "count * sizeof(@), kind)' to have it rewritten";
      if (llvm::StringRef(name).starts_with("cudaMemset"))
        why =
            "which sets pitched rows of bytes in the original layout; use "
            "'cudaMemset(d, value, count * sizeof(@))' to have it rewritten";
      for (const clang::Expr* arg : call->arguments()) args.push_back(arg);
    }
  }
  if (!why) return false;
  bool refused = false;
  for (const clang::Expr* arg : args) {
    EntityExpr target = entityExpr(arg, true);
    if (!target) continue;
    const std::string& name = target.info->planned->plan->name;
    consume(target.ref);
    if (pitched) entity(*target.info).seed = true;  // it holds device memory: the refusal keeps the layout
    std::string reason = why;
    for (size_t at; (at = reason.find('@')) != std::string::npos;) reason.replace(at, 1, name);  // the struct
    refuse(
        *target.info, arg->getBeginLoc(),
        "'" + namedDecl(target.ref)->getNameAsString() + "' is passed to " + callee->getNameAsString() + ", " + reason,
        arg->getSourceRange());
    refused = true;
  }
  return refused;
}

}  // namespace relayout::rw
