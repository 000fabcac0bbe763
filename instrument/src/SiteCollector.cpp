#include "SiteCollector.h"

#include "RecordInfo.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <fmt/format.h>

#include <algorithm>

namespace relayout {

namespace {

// Written __global__ or __device__: Clang makes constexpr functions __host__ __device__ by itself.
bool isDeviceFunction(const clang::FunctionDecl* fn) {
  const auto* device = fn->getAttr<clang::CUDADeviceAttr>();
  return fn->hasAttr<clang::CUDAGlobalAttr>() || (device && !device->isImplicit());
}

// How kernels and instantiations are named: "step", "scale<float>".
std::string displayName(const clang::FunctionDecl* fn) {
  if (!fn->getTemplateSpecializationArgs()) return fn->getQualifiedNameAsString();
  std::string name;
  llvm::raw_string_ostream os(name);
  fn->getNameForDiagnostic(os, fn->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return os.str();
}

// The function as written: a template's pattern for each of its instantiations.
const clang::FunctionDecl* writtenFunction(const clang::FunctionDecl* fn) {
  const clang::FunctionDecl* pattern = fn->getTemplateInstantiationPattern();
  return (pattern ? pattern : fn)->getCanonicalDecl();
}

// Whether a loop body written without braces needs its `;` taken inside the braces we add.
bool endsBeforeSemicolon(const clang::Stmt* s) {
  while (true) {
    if (const auto* i = llvm::dyn_cast<clang::IfStmt>(s)) s = i->getElse() ? i->getElse() : i->getThen();
    else if (const auto* f = llvm::dyn_cast<clang::ForStmt>(s)) s = f->getBody();
    else if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(s)) s = w->getBody();
    else if (const auto* r = llvm::dyn_cast<clang::CXXForRangeStmt>(s)) s = r->getBody();
    else if (const auto* l = llvm::dyn_cast<clang::LabelStmt>(s)) s = l->getSubStmt();
    else if (const auto* c = llvm::dyn_cast<clang::SwitchCase>(s)) s = c->getSubStmt();
    else if (const auto* a = llvm::dyn_cast<clang::AttributedStmt>(s)) s = a->getSubStmt();
    else break;
  }
  return !llvm::isa<clang::CompoundStmt, clang::NullStmt, clang::DeclStmt, clang::SwitchStmt>(s);
}

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
      fn->isDependentContext() || !sm_.isWrittenInMainFile(sm_.getExpansionLoc(fn->getLocation())))
    return Base::TraverseDecl(decl);
  const clang::FunctionDecl* written = writtenFunction(fn);
  auto [entry, added] = functionIndex_.try_emplace(written, functions_.size());
  if (added) {
    FunctionInfo info;
    info.name = written->getQualifiedNameAsString();
    info.isKernel = written->hasAttr<clang::CUDAGlobalAttr>();
    info.location = presumedLocation(written->getLocation(), sm_);
    if (info.isKernel) addKernelEntry(written, info.name);
    functions_.push_back(std::move(info));
  }
  if (fn->isTemplateInstantiation()) functions_[entry->second].instantiations.push_back(displayName(fn));
  const clang::FunctionDecl* outer = function_;
  const bool outerConstexpr = inConstexpr_;
  function_ = fn->getCanonicalDecl();
  inConstexpr_ = fn->isConstexpr();
  walked_.push_back(function_);
  bool result = Base::TraverseDecl(decl);
  function_ = outer;
  inConstexpr_ = outerConstexpr;
  return result;
}

// Every kernel stores its id first thing, so that helpers it calls count under it (rt.cuh).
void SiteCollector::addKernelEntry(const clang::FunctionDecl* kernel, const std::string& name) {
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel->getBody());
  const unsigned id = unsigned(kernelNames_.size());
  if (!body || !body->getLBracLoc().isFileID() || !sm_.isWrittenInMainFile(body->getLBracLoc())) {
    warn(kernel->getLocation(), fmt::format("kernel {} does not store its id: its body is not written in this "
                                            "file; helpers it calls are counted as called from an unknown kernel",
                                            name));
    return;
  }
  kernelNames_.push_back(name);
  const unsigned at = sm_.getFileOffset(body->getLBracLoc()) + 1;
  wraps_.push_back({at, at, fmt::format(" __rl_enter({});", id), ""});
}

template <class Traverse>
bool SiteCollector::traverseLoop(clang::Stmt* loop, clang::Stmt* body, clang::SourceLocation headerEnd, const char* kind,
                                 Traverse traverse) {
  if (!function_ || inConstexpr_) return traverse();  // a hook is not a constant expression
  clang::SourceLocation at = sm_.getExpansionLoc(loop->getBeginLoc());
  unsigned key = sm_.getFileOffset(at);
  auto [found, added] = loopAt_.try_emplace(key, unsigned(loops_.size()));
  const unsigned id = found->second;
  if (added) {
    LoopInfo info;
    info.id = id;
    info.kind = kind;
    info.function = functions_[functionIndex_.at(writtenFunction(function_))].name;
    info.location = presumedLocation(at, sm_);
    if (!loopStack_.empty()) info.parent = loopStack_.back();
    loops_.push_back(info);
    // The counter goes first in the body: `{ __rl_loop(ID);` or, for a body without braces,
    // `) { __rl_loop(ID); BODY }`.
    const clang::LangOptions& lo = context_.getLangOpts();
    Wrap wrap;
    bool placed = false;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body)) {
      if (block->getLBracLoc().isFileID() && block->getRBracLoc().isFileID() &&
          sm_.isWrittenInMainFile(block->getLBracLoc())) {
        wrap = {sm_.getFileOffset(block->getLBracLoc()) + 1, sm_.getFileOffset(block->getRBracLoc()),
                fmt::format(" __rl_loop({});", id), ""};
        placed = true;
      }
    } else {
      // From the end of the loop header (so that a `#pragma unroll` before the body stays at the
      // start of its line) to the end of the body, taking its `;`.
      const clang::Stmt* inner = body;
      while (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(inner)) inner = attributed->getSubStmt();
      clang::CharSourceRange r =
          clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(inner->getSourceRange()), sm_, lo);
      if (r.isValid() && headerEnd.isFileID() && sm_.isWrittenInMainFile(r.getBegin())) {
        clang::SourceLocation end = r.getEnd();
        if (endsBeforeSemicolon(inner)) {
          clang::SourceLocation last = clang::Lexer::GetBeginningOfToken(end.getLocWithOffset(-1), sm_, lo);
          end = clang::Lexer::findLocationAfterToken(last, clang::tok::semi, sm_, lo, false);
        }
        if (end.isValid()) {
          unsigned begin = sm_.getFileOffset(headerEnd) + clang::Lexer::MeasureTokenLength(headerEnd, sm_, lo);
          wrap = {begin, sm_.getFileOffset(end), fmt::format(" {{ __rl_loop({});", id), " }"};
          placed = true;
        }
      }
    }
    if (placed)
      wraps_.push_back(std::move(wrap));
    else
      warn(at, fmt::format("{} loop {} is not counted: its body is written inside a macro", kind, id));
  }
  loopStack_.push_back(id);
  bool result = traverse();
  loopStack_.pop_back();
  return result;
}

bool SiteCollector::TraverseForStmt(clang::ForStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "for", [&] { return Base::TraverseForStmt(loop); });
}
bool SiteCollector::TraverseWhileStmt(clang::WhileStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "while", [&] { return Base::TraverseWhileStmt(loop); });
}
bool SiteCollector::TraverseDoStmt(clang::DoStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getDoLoc(), "do", [&] { return Base::TraverseDoStmt(loop); });
}
bool SiteCollector::TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "range-for", [&] { return Base::TraverseCXXForRangeStmt(loop); });
}

bool SiteCollector::VisitCallExpr(clang::CallExpr* call) {
  if (!function_) return true;
  if (const clang::FunctionDecl* callee = call->getDirectCallee())
    if (isDeviceFunction(callee)) callees_[function_].insert(callee->getCanonicalDecl());
  return true;
}

// The main file's text of an access: inside a macro argument it is the argument's spelling; an
// access written inside a macro body (or an included file) cannot be hooked there and is reported.
std::optional<std::pair<unsigned, unsigned>> SiteCollector::fileRange(const clang::Expr* e, llvm::StringRef what) {
  if (inConstexpr_) {
    warn(e->getExprLoc(), (what + " is not instrumented: it is in a constexpr function (hooks are not constant "
                                  "expressions)").str());
    return std::nullopt;
  }
  clang::CharSourceRange r = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(e->getSourceRange()), sm_, context_.getLangOpts());
  if (r.isInvalid()) {
    warn(sm_.getExpansionLoc(e->getExprLoc()),
         (what + " is not instrumented: it is written inside a macro body (pass it as a macro argument)").str());
    return std::nullopt;
  }
  if (!sm_.isWrittenInMainFile(r.getBegin())) {
    warn(e->getExprLoc(), (what + " is not instrumented: it is in an included file (instrument that file too)").str());
    return std::nullopt;
  }
  return std::make_pair(sm_.getFileOffset(r.getBegin()), sm_.getFileOffset(r.getEnd()));
}

// Text hooked once already: a macro argument expanded twice, or another instantiation of a
// template. Its counters then cover every expansion.
std::optional<unsigned> SiteCollector::existingSite(std::pair<unsigned, unsigned> range,
                                                    const std::string& structName, AccessKind access,
                                                    clang::SourceLocation loc) {
  auto it = siteAt_.find(range);
  if (it == siteAt_.end()) return std::nullopt;
  auto [first, count] = it->second;
  for (unsigned id = first; id < first + count; ++id)
    if (sites_[id].access != access) sites_[id].access = AccessKind::ReadWrite;
  if (sites_[first].structName != structName)
    warn(loc, fmt::format("this access is to {} here but to {} in another instantiation; both are counted as site {}",
                          structName, sites_[first].structName, first));
  return first;
}

SiteInfo SiteCollector::newSite(const clang::RecordDecl* record, const Touched& touched, AccessKind access,
                                clang::SourceLocation loc) {
  SiteInfo site;
  site.id = static_cast<unsigned>(sites_.size());
  site.location = presumedLocation(loc, sm_);
  site.structName = recordName(record);
  site.field = touched.field->getNameAsString();
  site.member = touched.member;
  site.offset = touched.offset;
  site.size = touched.size;
  site.access = access;
  site.function = functions_[functionIndex_.at(writtenFunction(function_))].name;
  if (!loopStack_.empty()) site.loop = loopStack_.back();
  return site;
}

void SiteCollector::addFieldSite(const clang::Expr* access, const clang::RecordDecl* record, const Touched& touched) {
  std::string what = fmt::format("access to {}.{}", recordName(record), touched.member);
  auto range = fileRange(access, what);
  if (!range) return;
  clang::SourceLocation loc = sm_.getComposedLoc(sm_.getMainFileID(), range->first);
  AccessKind kind = accessKindOf(access);
  if (existingSite(*range, recordName(record), kind, loc)) return;
  SiteInfo site = newSite(record, touched, kind, loc);
  siteAt_[*range] = {site.id, 1u};
  // The hook evaluates the access once and yields the same lvalue: *__rl_site(id, &(access)).
  wraps_.push_back({range->first, range->second, fmt::format("(*__rl_site({}, &(", site.id), ")))"});
  sites_.push_back(std::move(site));
}

void SiteCollector::addWholeSites(const clang::Expr* element, const clang::RecordDecl* record, AccessKind access) {
  std::string name = recordName(record);
  auto range = fileRange(element, "whole-element use of " + name);
  if (!range) return;
  clang::SourceLocation loc = sm_.getComposedLoc(sm_.getMainFileID(), range->first);
  if (existingSite(*range, name, access, loc)) return;
  auto [it, inserted] = structs_.try_emplace(name);
  if (inserted) it->second = describeRecord(record, context_);
  const unsigned first = static_cast<unsigned>(sites_.size());
  std::string offsets;
  for (const clang::FieldDecl* field : record->fields()) {
    if (field->isBitField()) continue;  // no address of its own; the fields around it are counted
    const FieldInfo* info = it->second.field(field->getNameAsString());
    sites_.push_back(newSite(record, {field, info->name, info->offset, info->size}, access, loc));
    offsets += fmt::format(", {}u", info->offset);
  }
  if (sites_.size() == first) return;
  siteAt_[*range] = {first, unsigned(sites_.size()) - first};
  // Every field's hook on the one element address, then the copy or assignment as written.
  wraps_.push_back({range->first, range->second, "(*__rl_struct(&(", fmt::format("), {}u{}))", first, offsets)});
}

// At one offset: the ends of wraps that close there (innermost first), then the starts of wraps
// that open there (outermost first), so that nested hooks stay nested.
void SiteCollector::applyWraps() {
  std::map<unsigned, std::vector<std::pair<const Wrap*, bool>>> at;  // offset -> (wrap, opens)
  for (const Wrap& w : wraps_) {
    at[w.begin].push_back({&w, true});
    at[w.end].push_back({&w, false});
  }
  clang::FileID main = sm_.getMainFileID();
  for (auto& [offset, list] : at) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      if (a.second != b.second) return !a.second;           // closings before openings
      if (!a.second) return a.first->begin > b.first->begin;  // inner closes first
      return a.first->end > b.first->end;                    // outer opens first
    });
    std::string text;
    for (const auto& [w, opens] : list) text += opens ? w->prefix : w->suffix;
    if (!text.empty()) rewriter_.InsertText(sm_.getComposedLoc(main, offset), text, /*InsertAfter=*/true, false);
  }
}

void SiteCollector::collect(SiteMap& map) {
  markReferenceParameters();
  TraverseDecl(context_.getTranslationUnitDecl());
  applyWraps();

  // Kernels (each instantiation by name) reaching each function through static calls in this unit.
  std::vector<std::set<std::string>> reachedBy(functions_.size());
  for (const clang::FunctionDecl* fn : walked_) {
    if (!fn->hasAttr<clang::CUDAGlobalAttr>()) continue;
    std::vector<const clang::FunctionDecl*> work{fn};
    std::set<const clang::FunctionDecl*> seen{fn};
    while (!work.empty()) {
      const clang::FunctionDecl* f = work.back();
      work.pop_back();
      if (auto it = functionIndex_.find(writtenFunction(f)); it != functionIndex_.end())
        reachedBy[it->second].insert(displayName(fn));
      for (const clang::FunctionDecl* callee : callees_[f])
        if (seen.insert(callee).second) work.push_back(callee);
    }
  }
  std::map<std::string, std::set<std::string>> kernelsOf;  // by name, as sites name their function
  for (size_t i = 0; i < functions_.size(); ++i) {
    functions_[i].kernels.assign(reachedBy[i].begin(), reachedBy[i].end());
    kernelsOf[functions_[i].name].insert(reachedBy[i].begin(), reachedBy[i].end());
  }
  for (SiteInfo& site : sites_) site.kernels.assign(kernelsOf[site.function].begin(), kernelsOf[site.function].end());
  for (auto& [name, info] : structs_) map.structs.push_back(std::move(info));
  map.functions = std::move(functions_);
  map.kernels = std::move(kernelNames_);
  map.loops = std::move(loops_);
  map.sites = std::move(sites_);
}

}  // namespace relayout
