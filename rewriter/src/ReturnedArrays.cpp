// Functions that hand a device array back: `Boid* simulate(Boid* a, Boid* b, ...)` returns
// whichever buffer holds the last step, `template <class T> T* toDevice(const std::vector<T>&)`
// allocates and uploads. The value a function returns is an entity of its own, keyed by the
// function: `return p;` links p to it, a call `f(...)` is an expression naming it (so `S* r = f();`
// links r), and the return type becomes the device struct in every declaration of the function.
// A function template gets a non-template overload for the struct (TemplateClones.cpp).
#include "UseCollector.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>

namespace relayout::rw {

const UseCollector::EntityInfo* UseCollector::returnEntityOf(const clang::FunctionDecl* function) {
  if (!function) return nullptr;
  auto known = returns_.find(function);
  if (known != returns_.end()) return known->second ? &*known->second : nullptr;
  std::optional<EntityInfo> info;
  clang::QualType type = function->getReturnType();
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function);
  // A lambda's return type is not written where relayout could change it; its `return p;` stays
  // a use of p that is refused (UseDescription.cpp).
  bool lambda = method && method->getParent()->isLambda();
  if (!lambda && type->isPointerType() && !sm_.isInSystemHeader(function->getLocation()))
    if (const clang::RecordDecl* record = type->getPointeeType()->getAsRecordDecl())
      if (const PlannedStruct* planned = structs_.planned(record))
        if (std::string usr = usrOf(function->getCanonicalDecl()); !usr.empty()) {
          info = EntityInfo{usr + "#return", planned};
          facts_.entities[info->key].structName = planned->plan->name;
        }
  auto& slot = returns_[function] = info;
  return slot ? &*slot : nullptr;
}

bool UseCollector::VisitFunctionDecl(clang::FunctionDecl* function) {
  if (const EntityInfo* info = returnEntityOf(function)) declareReturn(function, *info);
  return true;
}

void UseCollector::declareReturn(const clang::FunctionDecl* function, const EntityInfo& info) {
  Entity& e = entity(info);
  e.declared = true;
  if (function->doesThisDeclarationHaveABody()) e.defined = true;
  const std::string& structName = info.planned->plan->name;
  std::string name = "'" + function->getNameAsString() + "'";
  if (e.undefinedWarning.empty())
    e.undefinedWarning = diags_.warning(
        function->getLocation(),
        refusalPrefix(structName) + name + " returns a device array of it but is not defined in the given sources");
  auto refuseDecl = [&](const std::string& why) {
    refuse(info, function->getLocation(), why, function->getReturnTypeSourceRange());
  };
  if (!info.planned->definition)
    return refuseDecl(name + " is declared where the definition of '" + structName + "' is not visible");
  if (!info.planned->layout) return;  // the plan does not fit the struct: an error for the whole program
  if (!sm_.isBeforeInTranslationUnit(info.planned->definitionEnd, function->getLocation()))
    return refuseDecl(name + " is declared before the end of the definition of '" + structName +
                      "', where its device layout is added");
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(function); method && method->isVirtual())
    return refuseDecl(name + " is a virtual member function: every override would have to change with it");
  if (function != cloning_ && (function->isTemplated() || rewrittenTemplate(function)))
    return refuseDecl(name + " is a template or a member of one, and returns the array (not handled yet)");
  std::vector<Edit> out;
  if (auto why = typeEdits(function, info, out)) return refuseDecl("the return type of " + name + " " + *why);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
}

const clang::FunctionDecl* UseCollector::enclosingFunction(const clang::Stmt* stmt) {
  clang::DynTypedNodeList parents = context_.getParents(*stmt);
  while (!parents.empty()) {
    if (const auto* function = parents[0].get<clang::FunctionDecl>()) return function;
    if (parents[0].get<clang::LambdaExpr>() || parents[0].get<clang::BlockExpr>()) return nullptr;
    parents = context_.getParents(parents[0]);
  }
  return nullptr;
}

// `return p;`, `return p + off;`, `return nullptr;` (-> `return {};`) in a function whose return
// value is an entity.
bool UseCollector::VisitReturnStmt(clang::ReturnStmt* ret) {
  const clang::Expr* value = ret->getRetValue();
  const EntityInfo* info = value ? returnEntityOf(enclosingFunction(ret)) : nullptr;
  if (!info || !info->planned->layout) return true;
  std::vector<Edit> out;
  switch (storeValue(value, *info, out)) {
    case Stored::kDone:
      addEdits(*info, out);
      break;
    case Stored::kOther: {
      std::string text = edits_.text(value->getSourceRange());
      refuse(*info, value->getBeginLoc(),
             "'" + (text.empty() ? std::string("...") : text) + "' is returned; only a null pointer or an array of '" +
                 info->planned->plan->name + "' (possibly '+ offset') can be rewritten",
             value->getSourceRange());
      break;
    }
    case Stored::kBeforeDefinition:
      refuse(*info, value->getBeginLoc(),
             "this return comes before the definition of '" + info->planned->plan->name +
                 "' ends, where relayoutOffset is added",
             value->getSourceRange());
      break;
    case Stored::kInMacro:
      refuse(*info, value->getBeginLoc(), "this return is not written out in the file (it comes from a macro body)",
             value->getSourceRange());
      break;
  }
  return true;
}

// A call whose value is an entity is a use of it, like a variable's name: recorded so that a use
// no form accepts is refused. A call made for its effects alone (`simulate(...);`) uses nothing.
void UseCollector::noteReturningCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  const EntityInfo* info = returnEntityOf(callee);
  if (!info) return;
  if (!llvm::isa_and_nonnull<clang::CompoundStmt>(parentOf(call))) refs_.push_back(call);
  // A specialization of a function template is not read where it is declared; it gets an overload.
  if (callee->getTemplatedKind() != clang::FunctionDecl::TK_FunctionTemplateSpecialization || rewrittenTemplate(callee))
    return;
  std::string name = "'" + callee->getNameAsString() + "'";
  const clang::FunctionDecl* pattern = callee->getTemplateInstantiationPattern();
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  std::string why;
  if (llvm::isa<clang::CXXMethodDecl>(callee))
    why = name + " is a member function template that returns the array (not handled yet)";
  else if (!pattern || !pattern->hasBody() || !callee->hasBody())
    why = name + " returns the array and is not defined in the given sources";
  else if (!ref) why = name + " is called in a form relayout does not follow (not by its name)";
  if (ref && ref->hasExplicitTemplateArgs()) {
    // `deviceAlloc<S>(n)`: the overload for the new layout is no template, so the call drops its
    // template arguments to choose it (the template cannot deduce them, or ties and loses).
    std::vector<Edit> out;
    if (!edits_.removeAfterUpTo(ref->getLocation(), ref->getRAngleLoc(), out))
      why = name + " is called with explicit template arguments that are not written out in the file";
    else entity(*info).edits.insert(entity(*info).edits.end(), out.begin(), out.end());
  }
  if (!why.empty()) return refuseUnfollowedValue(*info, call->getBeginLoc(), why, call->getSourceRange());
  passThroughClone(callee, *info);
}

}  // namespace relayout::rw
