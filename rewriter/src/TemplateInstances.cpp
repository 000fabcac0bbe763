// A function template whose parameters and locals name the planned struct directly
// (`template <typename Real> __global__ void k(Atom* atoms, Real* out)`, a host template that
// allocates `Atom* d` and launches kernels) is rewritten in its own text, like a plain function:
// `Atom*` is `Atom*` in every instance. Its pattern cannot be read (calls and expressions that
// depend on Real are unresolved there), so each instance is read instead, with full types; the
// instances' declarations share one entity per parameter or local of the template, their edits
// land in the template's text and must agree (identical edits merge, others overlap and refuse).
// Templates that receive the struct through their type parameter (`const T* d`) get an overload
// per instance instead (TemplateClones.cpp).
#include "UseCollector.h"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace relayout::rw {

namespace {

// References to variables in a template's own text.
class PatternRefs : public clang::RecursiveASTVisitor<PatternRefs> {
 public:
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (llvm::isa<clang::VarDecl>(ref->getDecl())) refs.push_back(ref);
    return true;
  }
  std::vector<const clang::DeclRefExpr*> refs;
};

}  // namespace

bool UseCollector::readsInstances(const clang::FunctionTemplateDecl* tmpl) {
  tmpl = tmpl->getCanonicalDecl();
  if (auto known = readsInstances_.find(tmpl); known != readsInstances_.end()) return known->second;
  auto decide = [&] {
    const clang::FunctionDecl* pattern = tmpl->getTemplatedDecl();
    if (llvm::isa<clang::CXXMethodDecl>(pattern) || !pattern->isDefined() ||
        sm_.isInSystemHeader(pattern->getLocation()))
      return false;
    if (llvm::any_of(pattern->parameters(), [](const clang::ParmVarDecl* p) { return p->isParameterPack(); }))
      return false;
    bool any = false;
    for (const clang::FunctionDecl* spec : tmpl->specializations()) {
      if (spec->getTemplateSpecializationKind() == clang::TSK_ExplicitSpecialization || !spec->hasBody()) continue;
      any = true;
      auto planned = [&](clang::QualType type) {
        const clang::RecordDecl* record = type->isPointerType() ? type->getPointeeType()->getAsRecordDecl() : nullptr;
        return record && structs_.planned(record);
      };
      // `template <class T> T* upload(const std::vector<T>&)`: the returned array comes through T.
      if (planned(spec->getReturnType()) && pattern->getReturnType()->isDependentType()) return false;
      for (unsigned i = 0; i < spec->getNumParams() && i < pattern->getNumParams(); ++i)
        if (planned(spec->getParamDecl(i)->getType()) && pattern->getParamDecl(i)->getType()->isDependentType())
          return false;  // the struct comes through a type parameter: an overload (TemplateClones.cpp)
    }
    return any;
  };
  return readsInstances_[tmpl] = decide();
}

const clang::FunctionTemplateDecl* UseCollector::rewrittenTemplate(const clang::FunctionDecl* function) {
  if (!function) return nullptr;
  const clang::FunctionTemplateDecl* tmpl = function->getDescribedFunctionTemplate();
  if (!tmpl && function->getTemplatedKind() == clang::FunctionDecl::TK_FunctionTemplateSpecialization &&
      function->getTemplateSpecializationKind() != clang::TSK_ExplicitSpecialization)
    tmpl = function->getPrimaryTemplate();
  return tmpl && readsInstances(tmpl) ? tmpl->getCanonicalDecl() : nullptr;
}

std::optional<std::string> UseCollector::instanceKey(const clang::VarDecl* var) {
  const auto* function = llvm::dyn_cast<clang::FunctionDecl>(var->getDeclContext());
  const clang::FunctionTemplateDecl* tmpl = rewrittenTemplate(function);
  if (!tmpl) return std::nullopt;
  std::string usr = usrOf(tmpl);
  if (usr.empty()) return std::nullopt;
  if (const auto* parm = llvm::dyn_cast<clang::ParmVarDecl>(var))
    return "instances:" + usr + "#" + std::to_string(parm->getFunctionScopeIndex());
  // A local: the same place in the template's text in every instance.
  clang::SourceLocation at = sm_.getExpansionLoc(var->getLocation());
  return "instances:" + usr + "@" + std::to_string(sm_.getFileOffset(at)) + ":" + var->getNameAsString();
}

bool UseCollector::TraverseFunctionTemplateDecl(clang::FunctionTemplateDecl* tmpl) {
  if (sm_.isInSystemHeader(tmpl->getLocation()) || !readsInstances(tmpl))
    return RecursiveASTVisitor::TraverseFunctionTemplateDecl(tmpl);
  // A declaration without the body only has its parameters to rewrite.
  if (!tmpl->getTemplatedDecl()->doesThisDeclarationHaveABody())
    return RecursiveASTVisitor::TraverseFunctionTemplateDecl(tmpl);
  size_t first = refs_.size();
  for (clang::FunctionDecl* spec : tmpl->specializations()) {
    if (spec->getTemplateSpecializationKind() == clang::TSK_ExplicitSpecialization || !spec->hasBody()) continue;
    const clang::FunctionDecl* outer = instance_;
    instance_ = spec;
    TraverseDecl(spec);
    instance_ = outer;
  }
  // Code that no instance compiles (a discarded `if constexpr` branch) is still checked where the
  // template is defined: a use of the struct there would not be rewritten.
  std::set<clang::SourceLocation> seen;
  for (size_t i = first; i < refs_.size(); ++i) seen.insert(refs_[i]->getExprLoc());
  PatternRefs pattern;
  pattern.TraverseStmt(tmpl->getTemplatedDecl()->getBody());
  for (const clang::DeclRefExpr* ref : pattern.refs)
    if (const EntityInfo* info = entityOf(ref->getDecl()); info && !seen.count(ref->getExprLoc()))
      refuse(*info, ref->getExprLoc(),
             "'" + ref->getDecl()->getNameAsString() + "' is used in code of '" + tmpl->getNameAsString() +
                 "' that no instance compiles (a discarded if constexpr branch?)",
             ref->getSourceRange());
  return true;
}

}  // namespace relayout::rw
