#include "relayout/clangsupport/SameElement.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace relayout {
namespace {

bool isLoop(const clang::Stmt* s) {
  return llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(s);
}

// Whether running `s` may leave the code after it unrun: a return, goto or throw anywhere in it, a
// break or continue outside the loops and switches it holds.
bool mayJumpOut(const clang::Stmt* s, bool inBreakable = false) {
  if (!s || llvm::isa<clang::LambdaExpr>(s)) return false;
  if (llvm::isa<clang::ReturnStmt, clang::GotoStmt, clang::CXXThrowExpr>(s)) return true;
  if (llvm::isa<clang::BreakStmt, clang::ContinueStmt>(s)) return !inBreakable;
  const bool breakable = inBreakable || isLoop(s) || llvm::isa<clang::SwitchStmt>(s);
  return std::any_of(s->child_begin(), s->child_end(),
                     [&](const clang::Stmt* child) { return mayJumpOut(child, breakable); });
}

// The branch of code `element` sits in below its function and innermost loop (see sameElementKey),
// by where it starts; none where the element runs whenever the loop body (or function) does.
std::optional<clang::SourceLocation> branchOf(clang::ASTContext& context, const clang::Expr* element) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*element);
  while (true) {
    clang::DynTypedNodeList parents = context.getParents(node);
    if (parents.empty()) return std::nullopt;
    const clang::DynTypedNode parent = parents[0];
    const clang::Stmt* child = node.get<clang::Stmt>();
    if (const auto* s = parent.get<clang::Stmt>(); s && child) {
      if (isLoop(s) || llvm::isa<clang::LambdaExpr>(s)) return std::nullopt;
      if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(s);
          branch && (child == branch->getThen() || child == branch->getElse()))
        return child->getBeginLoc();
      if (const auto* choice = llvm::dyn_cast<clang::AbstractConditionalOperator>(s);
          choice && (child == choice->getTrueExpr() || child == choice->getFalseExpr()))
        return child->getBeginLoc();
      if (const auto* logical = llvm::dyn_cast<clang::BinaryOperator>(s);
          logical && logical->isLogicalOp() && child == logical->getRHS())
        return child->getBeginLoc();
      if (llvm::isa<clang::SwitchCase>(s)) return s->getBeginLoc();
      if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(s)) {
        const clang::Stmt* lastExit = nullptr;
        for (const clang::Stmt* sibling : block->body()) {
          if (sibling == child) break;
          if (mayJumpOut(sibling)) lastExit = sibling;
        }
        if (lastExit) return lastExit->getEndLoc();
      }
    }
    if (parent.get<clang::FunctionDecl>()) return std::nullopt;
    node = parent;
  }
}

}  // namespace

const clang::Expr* accessedElement(const clang::Expr* access) {
  const clang::Expr* e = access;
  while (true) {
    e = e->IgnoreParenImpCasts();
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(e)) {
      // p->x: the element is *p; p[i].pos.x: down to p[i].
      if (member->isArrow()) return member->getBase()->IgnoreParenImpCasts();
      e = member->getBase();
      continue;
    }
    const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(e);
    if (subscript && llvm::isa<clang::MemberExpr>(subscript->getBase()->IgnoreParenImpCasts())) {
      e = subscript->getBase();  // p[i].a[3]: an array field's subscript, not the element's
      continue;
    }
    return e;
  }
}

std::string sameElementKey(clang::ASTContext& context, const clang::Expr* element) {
  const clang::SourceManager& sm = context.getSourceManager();
  const clang::CharSourceRange range = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(element->getSourceRange()), sm, context.getLangOpts());
  if (range.isInvalid()) return {};
  std::string key;
  for (char c : clang::Lexer::getSourceText(range, sm, context.getLangOpts())) {
    // Bytes outside printable ASCII belong to a comment or a string (a site map holds ASCII).
    if (static_cast<unsigned char>(c) >= 0x80 || (std::iscntrl(static_cast<unsigned char>(c)) && !std::isspace(c)))
      return {};
    if (!std::isspace(static_cast<unsigned char>(c))) key += c;
  }
  // A comment inside the element would make two spellings of it differ.
  if (key.empty() || key.find("/*") != std::string::npos || key.find("//") != std::string::npos) return {};
  if (std::optional<clang::SourceLocation> branch = branchOf(context, element)) {
    const clang::PresumedLoc at = sm.getPresumedLoc(sm.getExpansionLoc(*branch));
    if (at.isValid()) key += "@" + std::to_string(at.getLine()) + ":" + std::to_string(at.getColumn());
  }
  return key;
}

}  // namespace relayout
