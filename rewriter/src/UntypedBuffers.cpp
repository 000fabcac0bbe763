// An untyped device buffer cast at a launch: `char* buf; cudaMalloc((void**)&buf, n * sizeof(S));
// k<<<g, b>>>((S*)buf, n); cudaFree(buf);`. When that cast is the buffer's only typed use, the
// buffer becomes a variable of S's device struct (`SSoA buf;`, relayoutMalloc(&buf, ...), the cast
// goes, relayoutFree(buf)) linked to the parameter it reaches; any other use is refused by name.
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"

#include <clang/AST/ExprCXX.h>

namespace relayout::rw {

namespace {

bool isBytePointer(clang::QualType type) {
  if (!type->isPointerType()) return false;
  clang::QualType pointee = type->getPointeeType();
  return pointee->isVoidType() || pointee->isCharType() || pointee->isSpecificBuiltinType(clang::BuiltinType::UChar);
}

}  // namespace

// `(S*)buf` passed to the S* parameter `param`: true when buf is such a buffer, whose edits and
// refusals are then recorded under its own entity, linked to the parameter.
bool UseCollector::handleBufferCast(const clang::Expr* arg, const EntityInfo& param) {
  const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg->IgnoreParenImpCasts());
  if (!cast) return false;
  const clang::Expr* operand = cast->getSubExpr()->IgnoreParenImpCasts();
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(operand);
  const auto* var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  const clang::RecordDecl* record = cast->getType()->getPointeeType()->getAsRecordDecl();
  if (!record || structs_.planned(record) != param.planned || !param.planned->layout) return false;
  if (!isBytePointer(operand->getType())) return false;
  const std::string& structName = param.planned->plan->name;
  if (!var || !var->isLocalVarDecl()) {
    // A buffer that comes from elsewhere (a `void*` parameter, `buf + offset`): its allocation is
    // out of sight here. Said only when no device array is found at all.
    std::string text = edits_.text(operand->getSourceRange());
    facts_.untypedBuffers[structName].push_back(diags_.warning(
        cast->getBeginLoc(),
        refusalPrefix(structName) + "'" + (text.empty() ? "this buffer" : text) + "' is an untyped buffer cast to '" +
            param.planned->layout->baseName + "*' for a launch; relayout rewrites such a buffer only where it is a " +
            "local variable of the function that allocates it (char* buf; cudaMalloc(&buf, n * sizeof(" +
            param.planned->layout->baseName + ")); k<<<g, b>>>((" + param.planned->layout->baseName + "*)buf))",
        cast->getSourceRange()));
    return false;
  }
  const auto* function = llvm::dyn_cast_or_null<clang::FunctionDecl>(var->getParentFunctionOrMethod());
  if (!function || !function->getBody()) return false;

  const std::string key = usrOf(var);
  if (key.empty()) return false;
  facts_.links.emplace_back(key, param.key);
  if (!buffers_.insert(var).second) return true;  // read once, at its first cast
  const std::string name = "'" + var->getNameAsString() + "'";
  Entity& e = facts_.entities[key];
  e.structName = structName;
  e.declared = true;
  auto refuseHere = [&](clang::SourceLocation loc, const std::string& why, clang::SourceRange range) {
    e.refusals.push_back(diags_.warning(loc, refusalPrefix(structName) + why, range));
    facts_.untypedBuffers[structName].push_back(e.refusals.back());
  };
  if (!afterDefinition(param, var->getBeginLoc()))
    return refuseHere(var->getLocation(), name + " is declared before the definition of '" + structName + "' ends",
                      var->getSourceRange()),
           true;

  // The declaration: `char* buf;` / `void* buf = nullptr;` alone in its statement.
  std::vector<Edit> out;
  auto begin = edits_.written(var->getBeginLoc()), nameLoc = edits_.written(var->getLocation());
  const clang::Expr* init = var->getInit();
  bool nullInit = init && init->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull);
  std::string scope = record->getQualifiedNameAsString();
  scope = llvm::StringRef(scope).drop_back(record->getName().size()).str();
  auto between = begin && nameLoc ? edits_.between(*begin, *nameLoc) : std::nullopt;
  if (between && !between->contains(',') && (!init || nullInit)) {
    out.push_back(edits_.rawEdit(*begin, between->size(), scope + param.planned->layout->deviceName + " "));
    if (nullInit && !edits_.replaceExpansion(init->getSourceRange(), "{}", out)) out.clear();
  }
  if (out.empty())
    refuseHere(var->getLocation(),
               name + " is declared in a way relayout cannot give the type '" + param.planned->layout->deviceName +
                   "' (one variable, no initializer other than a null pointer)",
               var->getSourceRange());

  // Its uses: cudaMalloc(&buf) or cudaMalloc((void**)&buf), cudaFree(buf), and casts to S* passed
  // to an S* parameter of a plain function.
  const std::vector<const clang::DeclRefExpr*> refs = referencesTo(function->getBody(), var);
  unsigned helpers = 0;
  for (const clang::DeclRefExpr* use : refs) {
    const clang::Stmt* node = use;
    const clang::Stmt* parent = climbPast(context_, node, isParenOrImplicitCast);
    bool done = false;
    if (const auto* address = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
        address && address->getOpcode() == clang::UO_AddrOf) {
      // `&buf`, maybe inside `(void**)`, as cudaMalloc's first argument.
      const clang::Stmt* outer = address;
      const clang::Stmt* up =
          climbPast(context_, outer, [](const clang::Stmt* s) { return llvm::isa<clang::CastExpr>(s) || isParen(s); });
      const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(up);
      const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
      if (callee && isRuntimeCall(callee, "cudaMalloc") && call->getNumArgs() == 2 && call->getArg(0) == outer) {
        done = renameCall(call, "relayoutMalloc", out) && uncastArg(call->getArg(0), address, out);
        e.seed = true, helpers |= kMalloc;
      }
    } else if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent)) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (callee && isRuntimeCall(callee, "cudaFree") && call->getNumArgs() == 1) {
        done = renameCall(call, "relayoutFree", out) && uncastArg(call->getArg(0), use, out);
        helpers |= kFree;
      }
    } else if (const auto* typed = llvm::dyn_cast_or_null<clang::ExplicitCastExpr>(parent)) {
      // `(S*)buf` as an argument for an S* parameter: the cast goes (handleUserCall links it).
      const clang::Stmt* outer = typed;
      const clang::Stmt* up =
          climbPast(context_, outer, [](const clang::Stmt* s) { return llvm::isa<clang::ImplicitCastExpr>(s); });
      const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(up);
      const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
      const clang::RecordDecl* target =
          typed->getType()->isPointerType() ? typed->getType()->getPointeeType()->getAsRecordDecl() : nullptr;
      if (callee && target && structs_.planned(target) == param.planned)
        for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i)
          if (call->getArg(i) == outer && entityOf(callee->getParamDecl(i)) &&
              entityOf(callee->getParamDecl(i))->planned == param.planned)
            done = uncastArg(call->getArg(i), use, out);
    }
    if (!done) {
      const clang::Stmt* shown = parent && !llvm::isa<clang::CompoundStmt>(parent) ? parent : use;
      std::string text = edits_.text(shown->getSourceRange());
      refuseHere(use->getLocation(),
                 name + " is an untyped buffer cast to '" + param.planned->layout->baseName +
                     "*' for a launch, but is also used as '" + (text.empty() ? var->getNameAsString() : text) +
                     "'; relayout rewrites such a buffer only when its other uses are cudaMalloc(&" +
                     var->getNameAsString() + ", ...) and cudaFree(" + var->getNameAsString() + ")",
                 shown->getSourceRange());
    }
  }
  if (!e.seed)
    facts_.untypedBuffers[structName].push_back(diags_.warning(
        var->getLocation(),
        refusalPrefix(structName) + name + " is an untyped buffer cast to '" + param.planned->layout->baseName +
            "*' for a launch, but this function does not allocate it with cudaMalloc(&" + var->getNameAsString() +
            ", ...); relayout rewrites such a buffer only where it does",
        var->getSourceRange()));
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  e.helpers |= helpers;
  return true;
}

}  // namespace relayout::rw
