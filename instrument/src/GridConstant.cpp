// Read-only kernel parameters of class type, which the hooked kernel takes `__grid_constant__`
// (Collection.h, RawFunctionText::gridConstants). A kernel that calls a function keeps a by-value
// parameter it indexes at run time (a functor's `tints[material]`) on its stack: every thread of a
// classifying launch, the plain blocks too, stored it there at entry, where the original reads it
// from the parameter bank (the rasterizer's shadePixels: 59 MB of local stores). A grid constant
// is read where the launch put it; it must be const, so only a parameter that every instantiation
// only reads qualifies, and only where no other declaration would have to carry the annotation.
#include "SiteCollector.h"
#include "relayout/clangsupport/References.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>

namespace relayout {

namespace {

// Whether the object `use` names (the parameter or a part of it) is only read where it is used:
// read as a value, bound to a const reference, its non-mutable members read so, a const method
// called on it. Anything else (an assignment, a non-const reference or pointer, a lambda's
// capture, an unevaluated operand whose type would change) keeps the parameter as written.
bool onlyRead(clang::ASTContext& context, const clang::Expr* use) {
  for (;;) {
    const auto parents = context.getParents(*use);
    if (parents.size() != 1) return false;
    const clang::Stmt* parent = parents[0].get<clang::Stmt>();
    if (!parent) return false;
    if (const auto* paren = llvm::dyn_cast<clang::ParenExpr>(parent)) {
      use = paren;
      continue;
    }
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent)) {
      switch (cast->getCastKind()) {
        case clang::CK_LValueToRValue:
          return true;
        case clang::CK_NoOp:  // to const: nothing through it can write
          if (cast->getType().isConstQualified()) return true;
          use = cast;
          continue;
        case clang::CK_DerivedToBase:
        case clang::CK_UncheckedDerivedToBase:
          use = cast;
          continue;
        case clang::CK_ArrayToPointerDecay: {  // a member array, indexed; not a pointer kept
          const auto up = context.getParents(*cast);
          const auto* subscript = up.size() == 1 ? up[0].get<clang::ArraySubscriptExpr>() : nullptr;
          if (!subscript || subscript->getBase() != cast) return false;
          use = subscript;
          continue;
        }
        default:
          return false;
      }
    }
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent)) {
      if (member->isArrow() || member->getBase() != use) return false;
      if (const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl())) {
        if (field->isMutable()) return false;
        use = member;
        continue;
      }
      const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
      return method && (method->isConst() || method->isStatic());
    }
    if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(parent)) {
      const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
      return method && op->getNumArgs() > 0 && op->getArg(0) == use && method->isConst();
    }
    if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent))
      return construct->getConstructor()->isCopyConstructor() && construct->getNumArgs() >= 1 &&
             construct->getArg(0) == use;
    return false;
  }
}

// Whether `param` of `kernel` (an instantiation, or a function that is not a template) is a
// class-type value that the body only reads.
bool readOnlyRecord(clang::ASTContext& context, const clang::FunctionDecl* kernel, unsigned index) {
  const clang::ParmVarDecl* param = kernel->getParamDecl(index);
  if (!param->getType()->isRecordType() || param->hasAttr<clang::CUDAGridConstantAttr>() || !kernel->getBody())
    return false;
  for (const clang::DeclRefExpr* ref : referencesTo(kernel->getBody(), param))
    if (ref->refersToEnclosingVariableOrCapture() || !onlyRead(context, ref)) return false;
  return true;
}

// The function and each instantiation of it in this unit; none for a template with an explicit
// instantiation or specialization, which is another declaration the annotation must match.
std::vector<const clang::FunctionDecl*> bodiesOf(const clang::FunctionDecl* written) {
  const clang::FunctionTemplateDecl* tmpl = written->getDescribedFunctionTemplate();
  if (!tmpl) return {written};
  std::vector<const clang::FunctionDecl*> bodies;
  for (const clang::FunctionDecl* instance : tmpl->specializations()) {
    if (instance->getTemplateSpecializationKind() != clang::TSK_ImplicitInstantiation) return {};
    if (instance->getBody()) bodies.push_back(instance);
  }
  return bodies;
}

}  // namespace

void SiteCollector::noteGridConstants(const clang::FunctionDecl* written, RawFunctionText& text) const {
  const clang::FunctionTemplateDecl* tmpl = written->getDescribedFunctionTemplate();
  const auto redeclarations = [](const auto* decl) {
    return std::distance(decl->redecls_begin(), decl->redecls_end());
  };
  if (redeclarations(written) != 1 || (tmpl && redeclarations(tmpl) != 1)) return;
  const std::vector<const clang::FunctionDecl*> bodies = bodiesOf(written);
  if (bodies.empty()) return;
  for (unsigned i = 0; i < written->getNumParams(); ++i) {
    const clang::ParmVarDecl* param = written->getParamDecl(i);
    if (param->isParameterPack() || param->getBeginLoc().isMacroID()) continue;
    bool readOnly = true;
    for (const clang::FunctionDecl* body : bodies)
      readOnly = readOnly && body->getNumParams() == written->getNumParams() && readOnlyRecord(context_, body, i);
    auto place = readOnly ? projectPlace(param->getBeginLoc()) : std::nullopt;
    if (!place || place->file != text.definitionPlace.file || place->offset <= text.begin ||
        place->offset >= text.bodyBegin)
      continue;
    text.gridConstants[place->offset] = !bodies.front()->getParamDecl(i)->getType().isConstQualified();
  }
}

}  // namespace relayout
