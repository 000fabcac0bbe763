// Walks the device code of one translation unit: finds struct-field accesses (sites) and loops,
// wraps each site in the runtime hook through a clang::Rewriter, and fills the site map.
#pragma once

#include "relayout/core/SiteMap.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <map>
#include <set>
#include <vector>

namespace relayout {

class SiteCollector : public clang::RecursiveASTVisitor<SiteCollector> {
  using Base = clang::RecursiveASTVisitor<SiteCollector>;

 public:
  SiteCollector(clang::ASTContext& context, clang::Rewriter& rewriter);

  // Visits the whole translation unit, then completes `map` (structs, functions, loops, sites).
  void collect(SiteMap& map);

  bool TraverseDecl(clang::Decl* decl);
  bool TraverseForStmt(clang::ForStmt* loop);
  bool TraverseWhileStmt(clang::WhileStmt* loop);
  bool TraverseDoStmt(clang::DoStmt* loop);
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop);
  bool VisitMemberExpr(clang::MemberExpr* member);
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* subscript);
  bool VisitCallExpr(clang::CallExpr* call);

 private:
  template <class Traverse>
  bool traverseLoop(clang::Stmt* loop, const char* kind, Traverse traverse);
  const clang::RecordDecl* candidateElementRecord(const clang::ArraySubscriptExpr* subscript) const;
  AccessKind accessKindOf(const clang::Expr* access) const;
  void warn(clang::SourceLocation loc, llvm::StringRef message, clang::SourceRange range = {});
  void addSite(clang::MemberExpr* member, const clang::RecordDecl* record, const clang::FieldDecl* field);

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  clang::Rewriter& rewriter_;
  unsigned warningId_;

  const clang::FunctionDecl* function_ = nullptr;  // the device function being walked
  std::vector<unsigned> loopStack_;
  std::vector<LoopInfo> loops_;
  std::vector<SiteInfo> sites_;
  std::map<std::string, StructInfo> structs_;
  std::vector<const clang::FunctionDecl*> functions_;  // device functions with sites or calls, in order
  std::map<const clang::FunctionDecl*, std::set<const clang::FunctionDecl*>> callees_;
};

}  // namespace relayout
