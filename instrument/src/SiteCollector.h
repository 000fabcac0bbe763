// Walks the device code of one translation unit: finds struct-field accesses (sites) and loops,
// wraps each site in the runtime hook and puts a counter at the start of each loop body, and fills
// the site map. Which expressions are accesses: AccessForms.cpp.
#pragma once

#include "relayout/core/SiteMap.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace relayout {

class SiteCollector : public clang::RecursiveASTVisitor<SiteCollector> {
  using Base = clang::RecursiveASTVisitor<SiteCollector>;

 public:
  SiteCollector(clang::ASTContext& context, clang::Rewriter& rewriter);

  // Visits the whole translation unit, then completes `map` (structs, functions, loops, sites)
  // and applies the hooks to the rewriter.
  void collect(SiteMap& map);

  // Templates: accesses are found in each instantiation (where types are known) and hooked once
  // in the pattern's text; the patterns themselves are not walked.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(clang::Decl* decl);
  bool TraverseForStmt(clang::ForStmt* loop);
  bool TraverseWhileStmt(clang::WhileStmt* loop);
  bool TraverseDoStmt(clang::DoStmt* loop);
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop);
  bool VisitMemberExpr(clang::MemberExpr* member);
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) { return visitElement(e); }
  bool VisitUnaryOperator(clang::UnaryOperator* e) { return visitElement(e); }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) { return visitElement(e); }
  bool VisitCallExpr(clang::CallExpr* call);

 private:
  // A hook around a range of the main file: [begin, end) byte offsets.
  struct Wrap {
    unsigned begin = 0, end = 0;
    std::string prefix, suffix;
  };
  // A touched part of an element, from a top-level field down: "pos.x" at offset 12, size 4.
  struct Touched {
    const clang::FieldDecl* field = nullptr;
    std::string member;
    unsigned offset = 0, size = 0;
  };

  // AccessForms.cpp
  const clang::RecordDecl* elementRecord(const clang::Expr* e) const;
  bool isElementLvalue(const clang::Expr* e) const { return elementRecord(e) != nullptr; }
  void markReferenceParameters();
  const clang::Expr* extendMemberChain(const clang::MemberExpr* root, Touched& touched) const;
  AccessKind accessKindOf(const clang::Expr* access) const;
  bool visitElement(clang::Expr* e);

  // SiteCollector.cpp
  template <class Traverse>
  bool traverseLoop(clang::Stmt* loop, clang::Stmt* body, clang::SourceLocation headerEnd, const char* kind,
                    Traverse traverse);
  void warn(clang::SourceLocation loc, llvm::StringRef message, clang::SourceRange range = {});
  std::optional<std::pair<unsigned, unsigned>> fileRange(const clang::Expr* e, llvm::StringRef what);
  std::optional<unsigned> existingSite(std::pair<unsigned, unsigned> range, const std::string& structName,
                                       AccessKind access, clang::SourceLocation loc);
  SiteInfo newSite(const clang::RecordDecl* record, const Touched& touched, AccessKind access,
                   clang::SourceLocation loc);
  void addFieldSite(const clang::Expr* access, const clang::RecordDecl* record, const Touched& touched);
  void addWholeSites(const clang::Expr* element, const clang::RecordDecl* record, AccessKind access);
  void applyWraps();
  void addKernelEntry(const clang::FunctionDecl* kernel, const std::string& name);

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  clang::Rewriter& rewriter_;
  unsigned warningId_;

  const clang::FunctionDecl* function_ = nullptr;  // the device function (or instantiation) being walked
  bool inConstexpr_ = false;
  std::vector<unsigned> loopStack_;
  std::vector<LoopInfo> loops_;
  std::vector<std::string> kernelNames_;  // by kernel id
  std::map<unsigned, unsigned> loopAt_;  // file offset of a loop -> id (instantiations share it)
  std::vector<SiteInfo> sites_;
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>> siteAt_;  // file range -> first id, count
  std::vector<Wrap> wraps_;
  std::map<std::string, StructInfo> structs_;
  // Reference parameters bound to elements at some call in this unit: (function, index).
  std::set<std::pair<const clang::FunctionDecl*, unsigned>> elementParams_;

  // Functions as written (a template's pattern stands for its instantiations) and the decls walked.
  std::vector<FunctionInfo> functions_;
  std::map<const clang::FunctionDecl*, size_t> functionIndex_;
  std::vector<const clang::FunctionDecl*> walked_;
  std::map<const clang::FunctionDecl*, std::set<const clang::FunctionDecl*>> callees_;
};

}  // namespace relayout
