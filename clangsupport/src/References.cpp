#include "relayout/clangsupport/References.h"

#include <clang/AST/RecursiveASTVisitor.h>

namespace relayout {

namespace {

class ReferenceFinder : public clang::RecursiveASTVisitor<ReferenceFinder> {
 public:
  explicit ReferenceFinder(const clang::ValueDecl* decl) : decl_(decl) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (ref->getDecl() == decl_) found.push_back(ref);
    return true;
  }
  std::vector<const clang::DeclRefExpr*> found;

 private:
  const clang::ValueDecl* decl_;
};

}  // namespace

std::vector<const clang::DeclRefExpr*> referencesTo(const clang::Stmt* root, const clang::ValueDecl* decl) {
  ReferenceFinder finder(decl);
  if (root && decl) finder.TraverseStmt(const_cast<clang::Stmt*>(root));
  return std::move(finder.found);
}

}  // namespace relayout
