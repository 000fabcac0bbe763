// Where a kernel's unsampled blocks branch to the copy of its original body (Collection.h,
// RawFunctionText::branchAt). The copy lives in the same function, so what exists once per
// function, a static __shared__ array or a static local, must not be declared in both paths: its
// declaration moves up to the branch and both use it, or the branch follows it.
#include "SiteCollector.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

namespace relayout {

namespace {

bool oncePerFunction(const clang::Decl* decl) {
  const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
  return var && ((var->hasAttr<clang::CUDASharedAttr>() && !var->hasExternalStorage()) || var->isStaticLocal());
}

// The statements of a body that declare variables once per function; refused where a copy of the
// body cannot share them: a label (it would be defined twice), or such a variable declared in a
// lambda or a local class (the copy's closure would be another type, with its own variable) or
// beside other declarations.
class OncePerFunctionStatements : public clang::RecursiveASTVisitor<OncePerFunctionStatements> {
  using Base = clang::RecursiveASTVisitor<OncePerFunctionStatements>;

 public:
  std::vector<const clang::DeclStmt*> statements;
  bool refused = false;

  bool TraverseLambdaExpr(clang::LambdaExpr* lambda) {
    ++nested_;
    const bool go = Base::TraverseLambdaExpr(lambda);
    --nested_;
    return go;
  }
  bool TraverseCXXRecordDecl(clang::CXXRecordDecl* record) {
    ++nested_;
    const bool go = Base::TraverseCXXRecordDecl(record);
    --nested_;
    return go;
  }
  bool VisitDeclStmt(clang::DeclStmt* stmt) {
    const auto decls = stmt->decls();
    if (std::none_of(decls.begin(), decls.end(), oncePerFunction)) return true;
    if (nested_ > 0 || !std::all_of(decls.begin(), decls.end(), oncePerFunction)) refused = true;
    else statements.push_back(stmt);
    return !refused;
  }
  bool VisitLabelStmt(clang::LabelStmt*) {
    refused = true;
    return false;
  }

 private:
  int nested_ = 0;
};

// Whether declarations name something of the function (a parameter, a local, a local type): those
// cannot move up to the top of its body.
class LocalReferences : public clang::RecursiveASTVisitor<LocalReferences> {
 public:
  explicit LocalReferences(const clang::FunctionDecl* fn) : fn_(fn) {}
  bool found = false;

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) { return note(ref->getDecl()); }
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc type) { return note(type.getTypePtr()->getDecl()); }
  bool VisitTagTypeLoc(clang::TagTypeLoc type) { return note(type.getDecl()); }

 private:
  bool note(const clang::Decl* decl) {
    if (llvm::isa<clang::TemplateTypeParmDecl, clang::NonTypeTemplateParmDecl, clang::TemplateTemplateParmDecl>(decl))
      return true;
    for (const clang::DeclContext* dc = decl->getDeclContext(); dc && !found; dc = dc->getParent())
      found = dc == fn_;
    return !found;
  }
  const clang::FunctionDecl* fn_;
};

bool namesLocals(const clang::FunctionDecl* fn, const clang::DeclStmt* stmt) {
  LocalReferences finder(fn);
  for (const clang::Decl* decl : stmt->decls()) {
    const auto* var = llvm::cast<clang::VarDecl>(decl);
    if (const clang::TypeSourceInfo* type = var->getTypeSourceInfo()) finder.TraverseTypeLoc(type->getTypeLoc());
    if (var->hasInit()) finder.TraverseStmt(const_cast<clang::Expr*>(var->getInit()));
  }
  return finder.found;
}

// Each name the function declares (parameters included) and what each name refers to in its body:
// a declaration moved up must be the only one of its name, and no use of the name between its
// new place and its old one may mean something else (a global it shadowed).
class NamesInFunction : public clang::RecursiveASTVisitor<NamesInFunction> {
 public:
  std::map<std::string, int> declared;
  std::map<std::string, std::set<const clang::Decl*>> referenced;

  bool VisitNamedDecl(clang::NamedDecl* decl) {
    if (decl->getDeclName().isIdentifier()) ++declared[decl->getName().str()];
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const clang::ValueDecl* decl = ref->getDecl();
    if (decl->getDeclName().isIdentifier()) referenced[decl->getName().str()].insert(decl->getCanonicalDecl());
    return true;
  }
  // A name a template looks up when instantiated: it may mean anything.
  bool VisitOverloadExpr(clang::OverloadExpr* ref) { return unknown(ref->getName()); }
  bool VisitDependentScopeDeclRefExpr(clang::DependentScopeDeclRefExpr* ref) { return unknown(ref->getDeclName()); }
  bool unknown(const clang::DeclarationName& name) {
    if (name.isIdentifier()) referenced[name.getAsIdentifierInfo()->getName().str()].insert(nullptr);
    return true;
  }
  bool onlyOne(const clang::VarDecl* var) const {
    const std::string name = var->getName().str();
    auto uses = referenced.find(name);
    return declared.count(name) && declared.at(name) == 1 &&
           (uses == referenced.end() ||
            std::all_of(uses->second.begin(), uses->second.end(),
                        [&](const clang::Decl* d) { return d == var->getCanonicalDecl(); }));
  }
};

}  // namespace

void SiteCollector::noteKernelBranch(const clang::FunctionDecl* kernel, const clang::CompoundStmt* body,
                                     const FilePlace& open, RawFunctionText& text) const {
  OncePerFunctionStatements found;
  found.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  if (found.refused) return;
  if (found.statements.empty()) {  // most kernels: nothing to share, the branch at the `{`
    text.branchAt = open.offset + 1;
    return;
  }
  NamesInFunction names;
  for (const clang::ParmVarDecl* param : kernel->parameters()) names.VisitNamedDecl(const_cast<clang::ParmVarDecl*>(param));
  names.TraverseStmt(const_cast<clang::CompoundStmt*>(body));

  // The declarations that open the body stay where they are, the branch after them (the usual
  // tile or reduction buffer); so does one that names a local, which must then be a statement of
  // the body itself. The others move up to the branch.
  const auto declares = [&](const clang::Stmt* stmt) {
    return std::find(found.statements.begin(), found.statements.end(), stmt) != found.statements.end();
  };
  const auto opening = std::find_if_not(body->body_begin(), body->body_end(), declares);
  unsigned branchAt = open.offset + 1;
  std::vector<std::pair<unsigned, unsigned>> movable;
  for (const clang::DeclStmt* stmt : found.statements) {
    auto range = spelledRange(stmt->getSourceRange());
    if (!range || range->place.file != open.file) return;
    const auto decls = stmt->decls();
    const bool leading = std::find(body->body_begin(), opening, stmt) != opening;
    const bool moves = !leading && !namesLocals(kernel, stmt) &&
                       std::all_of(decls.begin(), decls.end(),
                                   [&](const clang::Decl* d) { return names.onlyOne(llvm::cast<clang::VarDecl>(d)); });
    if (moves) {
      movable.emplace_back(range->place.offset, range->end);
      continue;
    }
    if (!leading && std::find(body->body_begin(), body->body_end(), stmt) == body->body_end()) return;
    branchAt = std::max(branchAt, range->end);
  }
  text.branchAt = branchAt;
  for (auto [begin, end] : movable)
    if (begin >= branchAt) text.hoisted.emplace_back(begin, end);
}

}  // namespace relayout
