#include "SiteCollector.h"

#include "RecordInfo.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/Basic/SourceManager.h>
#include <fmt/format.h>

namespace relayout {

namespace {

bool isDeviceFunction(const clang::FunctionDecl* fn) {
  return fn->hasAttr<clang::CUDAGlobalAttr>() || fn->hasAttr<clang::CUDADeviceAttr>();
}

std::string functionName(const clang::FunctionDecl* fn) { return fn->getQualifiedNameAsString(); }

}  // namespace

SiteCollector::SiteCollector(clang::ASTContext& context, clang::Rewriter& rewriter)
    : context_(context), sm_(context.getSourceManager()), rewriter_(rewriter) {
  warningId_ = context.getDiagnostics().getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0");
}

void SiteCollector::warn(clang::SourceLocation loc, llvm::StringRef message, clang::SourceRange range) {
  auto builder = context_.getDiagnostics().Report(loc, warningId_);
  builder << message;
  if (range.isValid()) builder << range;
}

bool SiteCollector::TraverseDecl(clang::Decl* decl) {
  auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl);
  if (!fn || fn->isImplicit() || !fn->doesThisDeclarationHaveABody() || !isDeviceFunction(fn) ||
      !sm_.isWrittenInMainFile(sm_.getExpansionLoc(fn->getLocation())))
    return Base::TraverseDecl(decl);
  const clang::FunctionDecl* outer = function_;
  function_ = fn->getCanonicalDecl();
  functions_.push_back(function_);
  bool result = Base::TraverseDecl(decl);
  function_ = outer;
  return result;
}

template <class Traverse>
bool SiteCollector::traverseLoop(clang::Stmt* loop, const char* kind, Traverse traverse) {
  if (!function_) return traverse();
  LoopInfo info;
  info.id = static_cast<unsigned>(loops_.size());
  info.kind = kind;
  info.function = functionName(function_);
  info.location = presumedLocation(loop->getBeginLoc(), sm_);
  if (!loopStack_.empty()) info.parent = loopStack_.back();
  loops_.push_back(info);
  loopStack_.push_back(info.id);
  bool result = traverse();
  loopStack_.pop_back();
  return result;
}

bool SiteCollector::TraverseForStmt(clang::ForStmt* loop) {
  return traverseLoop(loop, "for", [&] { return Base::TraverseForStmt(loop); });
}
bool SiteCollector::TraverseWhileStmt(clang::WhileStmt* loop) {
  return traverseLoop(loop, "while", [&] { return Base::TraverseWhileStmt(loop); });
}
bool SiteCollector::TraverseDoStmt(clang::DoStmt* loop) {
  return traverseLoop(loop, "do", [&] { return Base::TraverseDoStmt(loop); });
}
bool SiteCollector::TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
  return traverseLoop(loop, "range-for", [&] { return Base::TraverseCXXForRangeStmt(loop); });
}

bool SiteCollector::VisitCallExpr(clang::CallExpr* call) {
  if (!function_) return true;
  if (const clang::FunctionDecl* callee = call->getDirectCallee())
    if (isDeviceFunction(callee)) callees_[function_].insert(callee->getCanonicalDecl());
  return true;
}

// Only elements reached through a pointer: arrays declared in device code (__shared__ tiles,
// per-thread locals) are not the global-memory layout relayout changes, and taking their fields'
// addresses would push locals out of registers.
const clang::RecordDecl* SiteCollector::candidateElementRecord(const clang::ArraySubscriptExpr* subscript) const {
  if (!subscript->getBase()->IgnoreParenImpCasts()->getType()->isPointerType()) return nullptr;
  const clang::RecordDecl* record = subscript->getType()->getAsRecordDecl();
  return isLayoutCandidate(record, sm_) ? record : nullptr;
}

// Reads are the default; a site is written when it is the left side of an assignment (through
// parentheses, array members and nested members), read and written for compound assignments,
// increments and when its address is taken (atomics take addresses).
AccessKind SiteCollector::accessKindOf(const clang::Expr* access) const {
  const clang::Expr* current = access;
  while (true) {
    clang::DynTypedNodeList parents = context_.getParents(*current);
    if (parents.empty()) return AccessKind::Read;
    const clang::DynTypedNode& parent = parents[0];
    if (const auto* paren = parent.get<clang::ParenExpr>()) {
      current = paren;
    } else if (const auto* cast = parent.get<clang::ImplicitCastExpr>()) {
      if (cast->getCastKind() == clang::CK_LValueToRValue) return AccessKind::Read;
      current = cast;
    } else if (const auto* sub = parent.get<clang::ArraySubscriptExpr>()) {
      if (sub->getBase()->IgnoreParenImpCasts() != current->IgnoreParenImpCasts()) return AccessKind::Read;
      current = sub;
    } else if (const auto* member = parent.get<clang::MemberExpr>()) {
      if (member->isArrow()) return AccessKind::Read;
      current = member;
    } else if (const auto* binary = parent.get<clang::BinaryOperator>()) {
      if (!binary->isAssignmentOp() || binary->getLHS()->IgnoreParens() != current->IgnoreParens())
        return AccessKind::Read;
      return binary->isCompoundAssignmentOp() ? AccessKind::ReadWrite : AccessKind::Write;
    } else if (const auto* unary = parent.get<clang::UnaryOperator>()) {
      if (unary->isIncrementDecrementOp() || unary->getOpcode() == clang::UO_AddrOf) return AccessKind::ReadWrite;
      return AccessKind::Read;
    } else {
      return AccessKind::Read;
    }
  }
}

bool SiteCollector::VisitMemberExpr(clang::MemberExpr* member) {
  if (!function_ || member->isArrow()) return true;
  auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(member->getBase()->IgnoreParenImpCasts());
  if (!subscript) return true;
  const clang::RecordDecl* record = candidateElementRecord(subscript);
  auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (!record || !field) return true;
  std::string what = fmt::format("access to {}.{}", recordName(record), field->getName().str());
  if (field->isBitField()) {
    warn(member->getExprLoc(), what + " is not instrumented: bit-fields have no address", member->getSourceRange());
    return true;
  }
  if (member->getBeginLoc().isMacroID() || member->getEndLoc().isMacroID()) {
    warn(sm_.getExpansionLoc(member->getExprLoc()),
         what + " is not instrumented: it is written inside a macro (not supported yet)");
    return true;
  }
  if (!sm_.isWrittenInMainFile(member->getBeginLoc())) {
    warn(member->getExprLoc(), what + " is not instrumented: it is in an included file (instrument that file too)");
    return true;
  }
  addSite(member, record, field);
  return true;
}

// A struct element used whole (copied, or its address taken) moves every field; counting those
// comes later, so such uses are reported rather than skipped silently.
bool SiteCollector::VisitArraySubscriptExpr(clang::ArraySubscriptExpr* subscript) {
  if (!function_) return true;
  const clang::RecordDecl* record = candidateElementRecord(subscript);
  if (!record) return true;
  clang::DynTypedNodeList parents = context_.getParents(*subscript);
  const clang::Expr* current = subscript;
  while (!parents.empty() && parents[0].get<clang::ParenExpr>()) {
    current = parents[0].get<clang::ParenExpr>();
    parents = context_.getParents(*current);
  }
  if (!parents.empty())
    if (const auto* member = parents[0].get<clang::MemberExpr>(); member && !member->isArrow()) return true;
  warn(sm_.getExpansionLoc(subscript->getExprLoc()),
       fmt::format("whole-element use of {} is not instrumented yet: its field accesses are not counted",
                   recordName(record)),
       subscript->getSourceRange());
  return true;
}

void SiteCollector::addSite(clang::MemberExpr* member, const clang::RecordDecl* record,
                            const clang::FieldDecl* field) {
  const std::string name = recordName(record);
  auto [it, inserted] = structs_.try_emplace(name);
  if (inserted) it->second = describeRecord(record, context_);
  const FieldInfo* info = it->second.field(field->getNameAsString());

  SiteInfo site;
  site.id = static_cast<unsigned>(sites_.size());
  site.location = presumedLocation(member->getBeginLoc(), sm_);
  site.structName = name;
  site.field = info->name;
  site.offset = info->offset;
  site.size = info->size;
  site.access = accessKindOf(member);
  site.function = functionName(function_);
  if (!loopStack_.empty()) site.loop = loopStack_.back();
  sites_.push_back(site);

  // The hook evaluates the access once and yields the same lvalue: *__rl_site(id, &(access)).
  rewriter_.InsertTextBefore(member->getBeginLoc(), fmt::format("(*__rl_site({}, &(", site.id));
  rewriter_.InsertTextAfterToken(member->getEndLoc(), ")))");
}

void SiteCollector::collect(SiteMap& map) {
  TraverseDecl(context_.getTranslationUnitDecl());

  // Kernels reaching each device function through static calls in this unit.
  std::map<const clang::FunctionDecl*, std::set<std::string>> reachedBy;
  for (const clang::FunctionDecl* fn : functions_) {
    if (!fn->hasAttr<clang::CUDAGlobalAttr>()) continue;
    std::vector<const clang::FunctionDecl*> work{fn};
    std::set<const clang::FunctionDecl*> seen{fn};
    while (!work.empty()) {
      const clang::FunctionDecl* f = work.back();
      work.pop_back();
      reachedBy[f].insert(functionName(fn));
      for (const clang::FunctionDecl* callee : callees_[f])
        if (seen.insert(callee).second) work.push_back(callee);
    }
  }
  std::map<std::string, std::vector<std::string>> kernelsOf;
  for (const clang::FunctionDecl* fn : functions_) {
    FunctionInfo info;
    info.name = functionName(fn);
    info.isKernel = fn->hasAttr<clang::CUDAGlobalAttr>();
    info.location = presumedLocation(fn->getLocation(), sm_);
    info.kernels.assign(reachedBy[fn].begin(), reachedBy[fn].end());
    kernelsOf[info.name] = info.kernels;
    map.functions.push_back(std::move(info));
  }
  for (SiteInfo& site : sites_) site.kernels = kernelsOf[site.function];
  for (auto& [name, info] : structs_) map.structs.push_back(std::move(info));
  map.loops = std::move(loops_);
  map.sites = std::move(sites_);
}

}  // namespace relayout
