// The uses of entities this version rewrites: field accesses p[i].f and p->f, the CUDA runtime's
// cudaMalloc / cudaFree / cudaMemset / cudaMemcpy (host <-> device), calls that pass an entity to
// an S* parameter, and sizeof(*p). Anything else is refused in DeclEdits.cpp / UseDescription.cpp.
#include "UseCollector.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Index/USRGeneration.h>

namespace relayout::rw {

std::string refusalPrefix(const std::string& structName) {
  return "cannot change the layout of '" + structName + "': ";
}

static std::string usrOf(const clang::Decl* decl) {
  llvm::SmallString<128> buffer;
  if (clang::index::generateUSRForDecl(decl, buffer)) return "";
  return buffer.str().str();
}

void UseCollector::collect() {
  TraverseDecl(context_.getTranslationUnitDecl());
  checkDeclarationGroups();
  checkFunctionReferences();
  refuseUnconsumed();
}

bool UseCollector::TraverseDecl(clang::Decl* decl) {
  if (decl && !llvm::isa<clang::TranslationUnitDecl>(decl) && sm_.isInSystemHeader(decl->getLocation())) return true;
  return RecursiveASTVisitor::TraverseDecl(decl);
}

const UseCollector::EntityInfo* UseCollector::entityOf(const clang::ValueDecl* decl) {
  auto known = entities_.find(decl);
  if (known != entities_.end()) return known->second ? &*known->second : nullptr;
  std::optional<EntityInfo> info;
  const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
  if (var && !var->isImplicit() && !sm_.isInSystemHeader(var->getLocation()) && var->getType()->isPointerType()) {
    if (const clang::RecordDecl* record = var->getType()->getPointeeType()->getAsRecordDecl()) {
      if (const PlannedStruct* planned = structs_.planned(record)) {
        std::string key;
        if (const auto* parm = llvm::dyn_cast<clang::ParmVarDecl>(var)) {
          if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(parm->getDeclContext()))
            if (std::string usr = usrOf(function->getCanonicalDecl()); !usr.empty())
              key = usr + "#" + std::to_string(parm->getFunctionScopeIndex());
        } else {
          key = usrOf(var->getCanonicalDecl());
        }
        if (!key.empty()) {
          info = EntityInfo{key, planned};
          facts_.entities[key].structName = planned->plan->name;
        }
      }
    }
  }
  auto& slot = entities_[decl] = info;
  return slot ? &*slot : nullptr;
}

const clang::DeclRefExpr* UseCollector::directRef(const clang::Expr* expr) {
  for (;;) {
    expr = expr->IgnoreParens();
    const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(expr);
    if (!cast || (cast->getCastKind() != clang::CK_LValueToRValue && cast->getCastKind() != clang::CK_NoOp)) break;
    expr = cast->getSubExpr();
  }
  return llvm::dyn_cast<clang::DeclRefExpr>(expr);
}

const clang::DeclRefExpr* UseCollector::runtimeArgRef(const clang::Expr* expr) {
  expr = expr->IgnoreParenImpCasts();
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(expr); cast && cast->getType()->isVoidPointerType())
    expr = cast->getSubExpr()->IgnoreParenImpCasts();
  return llvm::dyn_cast<clang::DeclRefExpr>(expr);
}

void UseCollector::refuse(const EntityInfo& info, clang::SourceLocation loc, const std::string& why,
                          clang::SourceRange range) {
  entity(info).refusals.push_back(diags_.warning(loc, refusalPrefix(info.planned->plan->name) + why, range));
}

bool UseCollector::afterDefinition(const EntityInfo& info, clang::SourceLocation loc) const {
  return info.planned->definition && sm_.isBeforeInTranslationUnit(info.planned->definitionEnd, loc);
}

bool UseCollector::VisitVarDecl(clang::VarDecl* var) {
  if (!llvm::isa<clang::ParmVarDecl>(var) && var->getBeginLoc().isValid() && !var->isImplicit())
    groups_[var->getBeginLoc().getRawEncoding()].push_back(var);
  if (const EntityInfo* info = entityOf(var)) declareEntity(var, *info);
  return true;
}

bool UseCollector::VisitDeclRefExpr(clang::DeclRefExpr* ref) {
  if (entityOf(ref->getDecl())) {
    refs_.push_back(ref);
  } else if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
    if (llvm::any_of(function->parameters(), [&](const clang::ParmVarDecl* p) { return entityOf(p) != nullptr; }))
      functionRefs_.push_back(ref);
  }
  return true;
}

// A call in a template that names a function with entity parameters: its arguments are not known.
bool UseCollector::VisitUnresolvedLookupExpr(clang::UnresolvedLookupExpr* lookup) {
  for (const clang::NamedDecl* decl : lookup->decls())
    if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(decl->getUnderlyingDecl()))
      for (const clang::ParmVarDecl* parm : function->parameters())
        if (const EntityInfo* info = entityOf(parm))
          refuse(*info, lookup->getBeginLoc(), "'" + function->getNameAsString() +
                 "' is called from template code, which relayout does not rewrite yet", lookup->getSourceRange());
  return true;
}

// p[i].f -> p.f[i] (a plain array) or p.cluster[i].f; p->f -> p.f[0] or p.cluster->f.
bool UseCollector::VisitMemberExpr(clang::MemberExpr* member) {
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (!field) return true;
  const clang::ArraySubscriptExpr* subscript = nullptr;
  const clang::DeclRefExpr* ref = nullptr;
  if (member->isArrow()) ref = directRef(member->getBase());
  else if ((subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(member->getBase()->IgnoreParens())))
    ref = directRef(subscript->getBase());
  const EntityInfo* info = ref ? entityOf(ref->getDecl()) : nullptr;
  if (!info) return true;
  consume(ref);
  if (!info->planned->layout) return true;
  const DeviceArray* array = info->planned->layout->arrayOf(field->getNameAsString());
  if (!array) return true;
  bool plain = array->clusterStruct.empty();
  std::vector<Edit> out;
  bool ok = edits_.writtenRange({member->getBeginLoc(), member->getMemberLoc()});
  if (ok && subscript) {
    ok = edits_.insertAfter(subscript->getBase()->getEndLoc(), "." + array->member, out);
    if (ok && plain) {
      clang::SourceLocation bracket = *edits_.written(subscript->getRBracketLoc());
      auto gap = edits_.between(bracket.getLocWithOffset(1), *edits_.written(member->getMemberLoc()));
      ok = gap && gap->trim() == "." && edits_.removeAfterUpTo(subscript->getRBracketLoc(), member->getMemberLoc(), out);
    }
  } else if (ok) {
    ok = edits_.replaceTokens(member->getOperatorLoc(), plain ? "." : "." + array->member + "->", out);
    if (ok && plain) ok = edits_.insertAfter(member->getMemberLoc(), "[0]", out);
  }
  if (!ok)
    return refuse(*info, member->getExprLoc(), "this access to '" + ref->getDecl()->getNameAsString() +
                  "' comes from a macro body; relayout edits only code written in the file or in macro arguments",
                  member->getSourceRange()), true;
  Entity& e = entity(*info);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  return true;
}

bool UseCollector::VisitCallExpr(clang::CallExpr* call) {
  callees_.insert(call->getCallee()->IgnoreParenImpCasts());
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee || llvm::isa<clang::CXXOperatorCallExpr>(call)) return true;
  if (!handleRuntimeCall(call, callee)) handleUserCall(call, callee);
  return true;
}

// sizeof(*p) and sizeof(p[i]) name the original struct.
bool UseCollector::VisitUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* expr) {
  if (expr->getKind() != clang::UETT_SizeOf || expr->isArgumentType()) return true;
  const clang::Expr* arg = expr->getArgumentExpr()->IgnoreParens();
  const clang::DeclRefExpr* ref = nullptr;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(arg); unary && unary->getOpcode() == clang::UO_Deref)
    ref = directRef(unary->getSubExpr());
  else if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(arg))
    ref = directRef(subscript->getBase());
  const EntityInfo* info = ref ? entityOf(ref->getDecl()) : nullptr;
  if (!info) return true;
  consume(ref);
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;  // no "(anonymous namespace)::"
  std::string type = clang::TypeName::getFullyQualifiedName(arg->getType().getUnqualifiedType(), context_, policy);
  std::vector<Edit> out;
  if (!edits_.replaceTokens(expr->getSourceRange(), "sizeof(" + type + ")", out))
    return refuse(*info, expr->getBeginLoc(), "this sizeof is not written out in the file (it comes from a macro body)",
                  expr->getSourceRange()), true;
  Entity& e = entity(*info);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  return true;
}

bool UseCollector::isRuntimeCall(const clang::FunctionDecl* callee, llvm::StringRef name) const {
  return callee->getIdentifier() && callee->getName() == name && sm_.isInSystemHeader(callee->getLocation());
}

bool UseCollector::renameCall(const clang::CallExpr* call, const std::string& helper, std::vector<Edit>& out) {
  const clang::Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  return edits_.replaceTokens(callee->getSourceRange(), helper, out);
}

bool UseCollector::uncastArg(const clang::Expr* arg, const clang::Expr* inner, std::vector<Edit>& out) {
  const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg->IgnoreParenImpCasts());
  if (!cast) return true;
  std::string text = edits_.text(inner->getSourceRange());
  return !text.empty() && edits_.replaceTokens(cast->getSourceRange(), text, out);
}

bool UseCollector::handleRuntimeCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  auto apply = [&](const EntityInfo& info, const char* helper, Helper kind, const clang::Expr* arg,
                   const clang::Expr* inner) {
    std::vector<Edit> out;
    if (!afterDefinition(info, call->getBeginLoc()))
      return refuse(info, call->getBeginLoc(), "this call comes before the definition of '" + info.planned->plan->name +
                    "' ends, where its helpers are added", call->getSourceRange());
    if (!renameCall(call, helper, out) || !uncastArg(arg, inner, out))
      return refuse(info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                    call->getSourceRange());
    Entity& e = entity(info);
    e.edits.insert(e.edits.end(), out.begin(), out.end());
    e.helpers |= kind;
  };
  if (isRuntimeCall(callee, "cudaMalloc") && call->getNumArgs() == 2) {
    const clang::Expr* arg = call->getArg(0)->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg)) arg = cast->getSubExpr()->IgnoreParenImpCasts();
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(arg);
    if (!address || address->getOpcode() != clang::UO_AddrOf) return true;
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(address->getSubExpr()->IgnoreParens());
    const EntityInfo* info = ref ? entityOf(ref->getDecl()) : nullptr;
    if (!info || !info->planned->layout) return true;
    consume(ref);
    entity(*info).seed = true;
    apply(*info, "relayoutMalloc", kMalloc, call->getArg(0), address);
    return true;
  }
  bool isFree = isRuntimeCall(callee, "cudaFree") && call->getNumArgs() == 1;
  bool isMemset = isRuntimeCall(callee, "cudaMemset") && call->getNumArgs() == 3;
  if (isFree || isMemset) {
    const clang::DeclRefExpr* ref = runtimeArgRef(call->getArg(0));
    const EntityInfo* info = ref ? entityOf(ref->getDecl()) : nullptr;
    if (!info || !info->planned->layout) return true;
    consume(ref);
    apply(*info, isFree ? "relayoutFree" : "relayoutMemset", isFree ? kFree : kMemset, call->getArg(0), ref);
    return true;
  }
  if (isRuntimeCall(callee, "cudaMemcpy") && call->getNumArgs() == 4) {
    handleMemcpy(call);
    return true;
  }
  return false;
}

// cudaMemcpy between a host S* (AoS, unchanged) and a device entity, in the direction its kind
// names; the host side must have type S* so the helper's gather/scatter is well-typed.
void UseCollector::handleMemcpy(const clang::CallExpr* call) {
  const clang::DeclRefExpr* dst = runtimeArgRef(call->getArg(0));
  const clang::DeclRefExpr* src = runtimeArgRef(call->getArg(1));
  const EntityInfo* dstInfo = dst ? entityOf(dst->getDecl()) : nullptr;
  const EntityInfo* srcInfo = src ? entityOf(src->getDecl()) : nullptr;
  if (!dstInfo && !srcInfo) return;
  const auto* kindRef = llvm::dyn_cast<clang::DeclRefExpr>(call->getArg(3)->IgnoreParenImpCasts());
  llvm::StringRef kind = kindRef ? kindRef->getDecl()->getName() : "";
  bool toDevice = kind == "cudaMemcpyHostToDevice", toHost = kind == "cudaMemcpyDeviceToHost";
  if (!toDevice && !toHost) {
    std::string kindText = edits_.text(call->getArg(3)->getSourceRange());
    for (auto [ref, info] : {std::pair{dst, dstInfo}, std::pair{src, srcInfo}})
      if (info) {
        consume(ref);
        refuse(*info, call->getBeginLoc(), "cudaMemcpy with kind '" + kindText + "' (only cudaMemcpyHostToDevice "
               "and cudaMemcpyDeviceToHost are handled yet)", call->getSourceRange());
      }
    return;
  }
  const clang::DeclRefExpr* deviceRef = toDevice ? dst : src;
  const EntityInfo* device = toDevice ? dstInfo : srcInfo;
  const EntityInfo* host = toDevice ? srcInfo : dstInfo;
  const clang::Expr* deviceArg = call->getArg(toDevice ? 0 : 1);
  const clang::Expr* hostArg = call->getArg(toDevice ? 1 : 0);
  if (host) {  // fine while it stays a host array
    consume(toDevice ? src : dst);
    refuse(*host, hostArg->getBeginLoc(), "'" + (toDevice ? src : dst)->getDecl()->getNameAsString() +
           "' is the host side of this cudaMemcpy, so it must keep the original layout", call->getSourceRange());
  }
  if (!device) return;
  consume(deviceRef);
  if (!device->planned->layout) return;
  const std::string& structName = device->planned->plan->name;
  const clang::Expr* hostExpr = hostArg->IgnoreParenImpCasts();
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(hostExpr); cast && cast->getType()->isVoidPointerType())
    hostExpr = cast->getSubExpr()->IgnoreParenImpCasts();
  clang::QualType hostType = hostExpr->getType();
  const clang::RecordDecl* hostRecord =
      hostType->isPointerType() ? hostType->getPointeeType()->getAsRecordDecl() : nullptr;
  if (!hostRecord || structs_.planned(hostRecord) != device->planned ||
      (toHost && hostType->getPointeeType().isConstQualified()))
    return refuse(*device, hostArg->getBeginLoc(), "this cudaMemcpy's host side '" +
                  edits_.text(hostArg->getSourceRange()) + "' is not a " + (toHost ? "" : "(const) ") +
                  device->planned->layout->baseName + "*, so the copy cannot gather or scatter " + structName +
                  "'s fields", hostArg->getSourceRange());
  std::vector<Edit> out;
  if (!afterDefinition(*device, call->getBeginLoc()))
    return refuse(*device, call->getBeginLoc(), "this call comes before the definition of '" + structName + "' ends",
                  call->getSourceRange());
  if (!renameCall(call, "relayoutMemcpy", out) || !uncastArg(deviceArg, deviceRef, out) ||
      !uncastArg(hostArg, hostExpr, out))
    return refuse(*device, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                  call->getSourceRange());
  Entity& e = entity(*device);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  e.helpers |= toDevice ? kToDevice : kToHost;
}

// Passing an entity to an S* parameter of a plain function (kernel, __device__ or host) links the
// two; an S* parameter that receives anything else must keep its type.
void UseCollector::handleUserCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  if (sm_.isInSystemHeader(callee->getLocation())) return;
  bool plain = callee->getTemplatedKind() == clang::FunctionDecl::TK_NonTemplate &&
               !llvm::isa<clang::CXXMethodDecl>(callee);
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    const clang::DeclRefExpr* ref = directRef(arg);
    const EntityInfo* argInfo = ref ? entityOf(ref->getDecl()) : nullptr;
    const EntityInfo* paramInfo = plain ? entityOf(callee->getParamDecl(i)) : nullptr;
    if (argInfo && paramInfo && argInfo->planned == paramInfo->planned) {
      consume(ref);
      facts_.links.emplace_back(argInfo->key, paramInfo->key);
    } else if (paramInfo && !argInfo) {
      std::string text = edits_.text(arg->getSourceRange());
      refuse(*paramInfo, arg->getBeginLoc(), "'" + callee->getNameAsString() + "' is called here with '" +
             (text.empty() ? "an argument" : text) + "', which is not a variable relayout rewrites",
             arg->getSourceRange());
    }
  }
}

}  // namespace relayout::rw
