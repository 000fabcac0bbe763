#include "SiteCollector.h"

#include "relayout/clangsupport/RowMajorIndex.h"
#include "relayout/clangsupport/SameElement.h"

#include "RecordInfo.h"

#include "relayout/instrument/FunctionHash.h"

#include <clang/AST/QualTypeNames.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>

#include <algorithm>

namespace relayout {

bool isDeviceFunction(const clang::FunctionDecl* fn) {
  const auto* device = fn->getAttr<clang::CUDADeviceAttr>();
  return fn->hasAttr<clang::CUDAGlobalAttr>() || (device && !device->isImplicit());
}

const clang::FunctionDecl* writtenFunction(const clang::FunctionDecl* fn) {
  const clang::FunctionDecl* pattern = fn->getTemplateInstantiationPattern();
  return (pattern ? pattern : fn)->getCanonicalDecl();
}

namespace {

// How kernels and instantiations are named: "step", "scale<float>".
std::string displayName(const clang::FunctionDecl* fn) {
  if (!fn->getTemplateSpecializationArgs()) return fn->getQualifiedNameAsString();
  std::string name;
  llvm::raw_string_ostream os(name);
  fn->getNameForDiagnostic(os, fn->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return os.str();
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

SiteCollector::SiteCollector(clang::ASTContext& context, std::function<bool(llvm::StringRef)> isProjectFile)
    : context_(context), sm_(context.getSourceManager()), isProjectFile_(std::move(isProjectFile)) {
  warningId_ = context.getDiagnostics().getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0");
}

void SiteCollector::warn(clang::SourceLocation loc, llvm::StringRef message, clang::SourceRange range) {
  auto builder = context_.getDiagnostics().Report(loc, warningId_);
  builder << message;
  if (range.isValid()) builder << range;
}

std::optional<FilePlace> SiteCollector::projectPlace(clang::SourceLocation loc) const {
  if (loc.isInvalid() || !loc.isFileID()) return std::nullopt;
  auto [fileId, offset] = sm_.getDecomposedLoc(loc);
  auto [cached, added] = const_cast<SiteCollector*>(this)->projectFileOf_.try_emplace(fileId);
  if (added) {
    clang::OptionalFileEntryRef entry = sm_.getFileEntryRefForID(fileId);
    if (entry && !sm_.isInSystemHeader(loc)) {
      llvm::StringRef real = entry->getFileEntry().tryGetRealPathName();
      std::string path = real.empty() ? entry->getName().str() : real.str();
      if (isProjectFile_(path)) cached->second = path;
    }
  }
  if (!cached->second) return std::nullopt;
  return FilePlace{*cached->second, offset};
}

SourceLocation SiteCollector::where(clang::SourceLocation loc) const {
  SourceLocation out = presumedLocation(loc, sm_);
  if (auto place = projectPlace(sm_.getFileLoc(loc))) out.file = place->file;
  return out;
}

bool SiteCollector::TraverseDecl(clang::Decl* decl) {
  auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl);
  if (!fn || fn->isImplicit() || !fn->doesThisDeclarationHaveABody() || !isDeviceFunction(fn) ||
      fn->isDependentContext() || !inProjectFile(fn->getLocation()))
    return Base::TraverseDecl(decl);
  const clang::FunctionDecl* written = writtenFunction(fn);
  auto [entry, added] = functionIndex_.try_emplace(written, functions_.size());
  if (added) {
    FunctionInfo info;
    info.name = written->getQualifiedNameAsString();
    info.isKernel = written->hasAttr<clang::CUDAGlobalAttr>();
    info.location = where(written->getLocation());
    info.hash = functionTokenHash(*written);
    if (info.isKernel) addKernelEntry(written, info.name);
    if (const clang::FunctionDecl* definition = written->getDefinition()) notePlainClone(definition);
    functions_.push_back(std::move(info));
    writtenFunctions_.push_back(written);
  }
  if (fn->isTemplateInstantiation()) {
    functions_[entry->second].instantiations.push_back(displayName(fn));
    if (functions_[entry->second].isKernel) addKernelInstance(written, fn);
  }
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
  std::optional<FilePlace> brace = body ? projectPlace(body->getLBracLoc()) : std::nullopt;
  if (!brace) {
    warn(kernel->getLocation(), fmt::format("kernel {} does not store its id: its body is written inside a macro; "
                                            "helpers it calls are counted as called from an unknown kernel",
                                            name));
    return;
  }
  FileFindings& file = files_[brace->file];
  file.path = brace->file;
  file.kernels[brace->offset + 1] = RawKernel{name, brace->offset + 1};
}

void SiteCollector::addKernelInstance(const clang::FunctionDecl* written, const clang::FunctionDecl* instance) {
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(written->getBody());
  std::optional<FilePlace> brace = body ? projectPlace(body->getLBracLoc()) : std::nullopt;
  std::optional<std::string> condition = instanceCondition(instance);
  if (!brace || !condition) return;
  auto file = files_.find(brace->file);
  if (file == files_.end() || !file->second.kernels.count(brace->offset + 1)) return;
  addConditions(file->second.kernels.at(brace->offset + 1).instances, {*condition});
}

template <class Traverse>
bool SiteCollector::traverseLoop(clang::Stmt* loop, clang::Stmt* body, clang::SourceLocation headerEnd,
                                 const char* kind, Traverse traverse) {
  if (!function_ || inConstexpr_) return traverse();  // a hook is not a constant expression
  clang::SourceLocation at = sm_.getExpansionLoc(loop->getBeginLoc());
  std::optional<FilePlace> place = projectPlace(at);
  if (!place) return traverse();  // a loop written in a macro body of a library header
  FileFindings& file = files_[place->file];
  file.path = place->file;
  if (!file.loops.count(place->offset)) {
    RawLoop raw;
    raw.info.kind = kind;
    raw.info.function = functions_[functionIndex_.at(writtenFunction(function_))].name;
    raw.info.location = where(at);
    if (!loopStack_.empty()) raw.parent = loopStack_.back();
    // The counter goes first in the body: `{ __rl_loop(ID);` or, for a body without braces,
    // `) { __rl_loop(ID); BODY }`.
    const clang::LangOptions& lo = context_.getLangOpts();
    bool placed = false;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body)) {
      auto open = projectPlace(block->getLBracLoc()), close = projectPlace(block->getRBracLoc());
      if (open && close && open->file == place->file) {
        raw.begin = open->offset + 1;
        raw.end = close->offset;
        placed = true;
      }
    } else {
      // From the end of the loop header (so that a `#pragma unroll` before the body stays at the
      // start of its line) to the end of the body, taking its `;`.
      const clang::Stmt* inner = body;
      while (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(inner)) inner = attributed->getSubStmt();
      clang::CharSourceRange r =
          clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(inner->getSourceRange()), sm_, lo);
      if (r.isValid() && headerEnd.isFileID()) {
        clang::SourceLocation end = r.getEnd();
        if (endsBeforeSemicolon(inner)) {
          clang::SourceLocation last = clang::Lexer::GetBeginningOfToken(end.getLocWithOffset(-1), sm_, lo);
          end = clang::Lexer::findLocationAfterToken(last, clang::tok::semi, sm_, lo, false);
        }
        auto header = projectPlace(headerEnd), stop = projectPlace(end);
        if (header && stop && header->file == place->file && stop->file == place->file) {
          raw.begin = header->offset + clang::Lexer::MeasureTokenLength(headerEnd, sm_, lo);
          raw.end = stop->offset;
          raw.addBraces = true;
          placed = true;
        }
      }
    }
    if (placed) file.loops[place->offset] = std::move(raw);
    else warn(at, fmt::format("{} loop is not counted: its body is written inside a macro", kind));
  }
  const bool counted = file.loops.count(place->offset) != 0;
  if (counted) loopStack_.push_back(*place);
  bool result = traverse();
  if (counted) loopStack_.pop_back();
  return result;
}

bool SiteCollector::TraverseForStmt(clang::ForStmt* loop) {
  const bool result =
      traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "for", [&] { return Base::TraverseForStmt(loop); });
  noteLoopHeader(loop);
  return result;
}
bool SiteCollector::TraverseWhileStmt(clang::WhileStmt* loop) {
  const bool result =
      traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "while", [&] { return Base::TraverseWhileStmt(loop); });
  noteLoopHeader(loop);
  return result;
}
bool SiteCollector::TraverseDoStmt(clang::DoStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getDoLoc(), "do", [&] { return Base::TraverseDoStmt(loop); });
}
bool SiteCollector::TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
  return traverseLoop(loop, loop->getBody(), loop->getRParenLoc(), "range-for",
                      [&] { return Base::TraverseCXXForRangeStmt(loop); });
}

bool SiteCollector::VisitCallExpr(clang::CallExpr* call) {
  if (!function_) return true;
  if (const clang::FunctionDecl* callee = call->getDirectCallee()) {
    if (isDeviceFunction(callee)) callees_[function_].insert(callee->getCanonicalDecl());
    if (!llvm::isa<clang::CUDAKernelCallExpr>(call) && !inConstexpr_) noteCall(call, callee);
  } else if (!inConstexpr_) {
    noteIndirectCall(call);
  }
  checkCallOnElement(call);
  return true;
}

// The text of an access in a project file: inside a macro argument it is the argument's spelling;
// an access written inside a macro body, or in a library header, cannot be hooked and is reported.
std::optional<SiteCollector::FileRange> SiteCollector::fileRange(const clang::Expr* e, llvm::StringRef what) {
  if (inConstexpr_) {
    warn(e->getExprLoc(), (what + " is not instrumented: it is in a constexpr function (hooks are not constant "
                                  "expressions)")
                              .str());
    return std::nullopt;
  }
  clang::CharSourceRange r = clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(e->getSourceRange()),
                                                             sm_, context_.getLangOpts());
  if (r.isInvalid()) {
    warn(sm_.getExpansionLoc(e->getExprLoc()),
         (what + " is not instrumented: it is written inside a macro body (pass it as a macro argument)").str());
    return std::nullopt;
  }
  auto begin = projectPlace(r.getBegin()), end = projectPlace(r.getEnd());
  if (!begin || !end || begin->file != end->file) {
    warn(e->getExprLoc(), (what + " is not instrumented: it is in a file outside the project's folders (the "
                                  "folders of the sources and of their -I/-iquote flags)")
                              .str());
    return std::nullopt;
  }
  return FileRange{begin->file, begin->offset, end->offset, r.getBegin()};
}

// Text hooked once already: a macro argument expanded twice, or another instantiation of a
// template. Its counters then cover every expansion.
bool SiteCollector::existingAccess(const FileRange& range, const std::string& structName, AccessKind access,
                                   clang::SourceLocation loc) {
  auto file = files_.find(range.file);
  if (file == files_.end()) return false;
  auto it = file->second.accesses.find({range.begin, range.end});
  if (it == file->second.accesses.end()) return false;
  for (SiteInfo& site : it->second.sites)
    if (site.access != access) site.access = AccessKind::ReadWrite;
  if (it->second.sites.front().structName != structName)
    warn(loc, fmt::format("this access is to {} here but to {} in another instantiation; both are counted as one site",
                          structName, it->second.sites.front().structName));
  return true;
}

SiteInfo SiteCollector::newSite(const clang::RecordDecl* record, const Touched& touched, AccessKind access,
                                clang::SourceLocation loc) {
  SiteInfo site;
  site.location = where(loc);
  site.structName = recordName(record);
  site.field = touched.field->getNameAsString();
  site.member = touched.member;
  site.offset = touched.offset;
  site.size = touched.size;
  site.access = access;
  site.function = functions_[functionIndex_.at(writtenFunction(function_))].name;
  functionsWithSites_.insert(site.function);
  return site;
}

std::optional<std::string> SiteCollector::instanceCondition(const clang::FunctionDecl* fn) const {
  if (!fn || fn->getTemplatedKind() != clang::FunctionDecl::TK_FunctionTemplateSpecialization) return std::nullopt;
  const clang::FunctionTemplateDecl* primary = fn->getPrimaryTemplate();
  const clang::TemplateArgumentList* args = fn->getTemplateSpecializationArgs();
  const clang::FunctionDecl* pattern = fn->getTemplateInstantiationPattern();
  if (!primary || !args || !pattern || fn->getDeclContext()->isDependentContext() ||
      llvm::isa<clang::ClassTemplateSpecializationDecl>(fn->getDeclContext()))
    return std::nullopt;
  const clang::TemplateParameterList* params = primary->getTemplateParameters();
  if (params->size() != args->size()) return std::nullopt;
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  std::vector<std::string> terms;
  for (unsigned i = 0; i < params->size(); ++i) {
    const clang::NamedDecl* param = params->getParam(i);
    const clang::TemplateArgument& arg = args->get(i);
    if (param->isParameterPack() || param->getName().empty()) return std::nullopt;
    if (llvm::isa<clang::TemplateTypeParmDecl>(param) && arg.getKind() == clang::TemplateArgument::Type) {
      // The argument's type is named in the template's text: it must be declared before it.
      const clang::Type* base = arg.getAsType()->getPointeeOrArrayElementType();
      while (base->isPointerType() || base->isReferenceType())
        base = base->getPointeeType()->getPointeeOrArrayElementType();
      if (const clang::TagDecl* tag = base->getAsTagDecl())
        if (tag->getDeclContext()->isFunctionOrMethod() || !tag->getIdentifier() ||
            !sm_.isBeforeInTranslationUnit(tag->getLocation(), pattern->getBeginLoc()))
          return std::nullopt;
      terms.push_back(fmt::format("__rl_same<{}, {}>::value", param->getName().str(),
                                  clang::TypeName::getFullyQualifiedName(arg.getAsType(), context_, policy, true)));
    } else if (llvm::isa<clang::NonTypeTemplateParmDecl>(param) && arg.getKind() == clang::TemplateArgument::Integral) {
      terms.push_back(fmt::format("({} == {})", param->getName().str(), llvm::toString(arg.getAsIntegral(), 10)));
    } else {
      return std::nullopt;
    }
  }
  if (terms.empty()) return std::nullopt;
  std::string condition = terms.front();
  for (size_t i = 1; i < terms.size(); ++i) condition += " && " + terms[i];
  return condition;
}

bool SiteCollector::existingInstanceAccess(const FileRange& range, const SiteInfo& site, const std::string& condition) {
  auto file = files_.find(range.file);
  if (file == files_.end()) return false;
  auto it = file->second.accesses.find({range.begin, range.end});
  if (it == file->second.accesses.end()) return false;
  if (!hasInstances(it->second)) return false;  // hooked as something else
  addInstanceSite(it->second, site, {condition});
  return true;
}

void SiteCollector::addFieldSite(const clang::Expr* access, const clang::RecordDecl* record, const Touched& touched) {
  std::string what = fmt::format("access to {}.{}", recordName(record), touched.member);
  auto range = fileRange(access, what);
  if (!range) return;
  clang::SourceLocation loc = range->at;
  AccessKind kind = accessKindOf(access);
  std::optional<std::string> condition = instanceCondition(function_);
  if (condition && existingInstanceAccess(*range, newSite(record, touched, kind, loc), *condition)) return;
  if (existingAccess(*range, recordName(record), kind, loc)) return;
  RawAccess raw;
  raw.begin = range->begin;
  raw.end = range->end;
  raw.sites.push_back(newSite(record, touched, kind, loc));
  describeElement(raw.sites.back(), access);
  if (condition) raw.instances.push_back({*condition});
  if (!loopStack_.empty()) raw.loop = loopStack_.back();
  FileFindings& file = files_[range->file];
  file.path = range->file;
  file.accesses[{range->begin, range->end}] = std::move(raw);
}

unsigned SiteCollector::elementRowWidth(const clang::Expr* element) const {
  const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(element->IgnoreParenImpCasts());
  if (!subscript || !subscript->getType()->isRecordType()) return 0;
  auto form = rowMajorIndexThroughLocal(context_, subscript->getIdx());
  return form ? unsigned(form->width) : 0;
}

void SiteCollector::describeElement(SiteInfo& site, const clang::Expr* access) const {
  const clang::Expr* element = accessedElement(access);
  site.rowWidth = elementRowWidth(element);
  site.element = sameElementKey(context_, element);
}

void SiteCollector::addWholeSites(const clang::Expr* element, const clang::RecordDecl* record, AccessKind access,
                                  const std::set<std::string>* read) {
  std::string name = recordName(record);
  auto range = fileRange(element, "whole-element use of " + name);
  if (!range) return;
  clang::SourceLocation loc = range->at;
  if (existingAccess(*range, name, access, loc)) return;
  if (nonAsciiField(record)) return;  // its field accesses say why it is not instrumented
  auto [it, inserted] = structs_.try_emplace(name);
  if (inserted) it->second = describeRecord(record, context_);
  RawAccess raw;
  raw.begin = range->begin;
  raw.end = range->end;
  raw.whole = true;
  for (const clang::FieldDecl* field : record->fields()) {
    if (field->isBitField()) continue;  // no address of its own; the fields around it are counted
    const FieldInfo* info = it->second.field(field->getNameAsString());
    raw.sites.push_back(newSite(record, {field, info->name, info->offset, info->size}, access, loc));
    raw.sites.back().unread = read && !read->count(field->getNameAsString());
    describeElement(raw.sites.back(), element);
  }
  if (raw.sites.empty()) return;
  if (!loopStack_.empty()) raw.loop = loopStack_.back();
  FileFindings& file = files_[range->file];
  file.path = range->file;
  file.accesses[{range->begin, range->end}] = std::move(raw);
}

// A kernel or device function that takes a pointer to a candidate struct and has no site of its
// own: say so, since "0 access sites" with no word is what users met on code whose accesses the
// tool cannot see.
void SiteCollector::reportUnusedStructParameters() {
  // Whether a function or a device function it calls (statically, in this unit) has a site.
  auto reachesSites = [&](const clang::FunctionDecl* fn) {
    std::vector<const clang::FunctionDecl*> work{fn->getCanonicalDecl()};
    std::set<const clang::FunctionDecl*> seen(work.begin(), work.end());
    while (!work.empty()) {
      const clang::FunctionDecl* f = work.back();
      work.pop_back();
      if (auto it = functionIndex_.find(writtenFunction(f));
          it != functionIndex_.end() && functionsWithSites_.count(functions_[it->second].name))
        return true;
      for (const clang::FunctionDecl* callee : callees_[f])
        if (seen.insert(callee).second) work.push_back(callee);
    }
    return false;
  };
  for (size_t i = 0; i < functions_.size(); ++i) {
    const clang::FunctionDecl* fn = writtenFunctions_[i];
    bool walkedHere = false;  // a template's instantiations are what was walked
    for (const clang::FunctionDecl* w : walked_) walkedHere |= writtenFunction(w) == fn;
    if (!walkedHere) continue;
    bool reached = reachesSites(fn);
    for (const clang::FunctionDecl* w : walked_)
      if (writtenFunction(w) == fn) reached |= reachesSites(w);
    if (reached) continue;
    for (const clang::ParmVarDecl* param : fn->parameters()) {
      clang::QualType type = param->getType();
      if (!type->isPointerType()) continue;
      const clang::RecordDecl* record = type->getPointeeType()->getAsRecordDecl();
      if (!isLayoutCandidate(record, sm_)) continue;
      warn(param->getLocation(),
           fmt::format("{} {} takes {} '{}' but relayout found no access through it, here or in the device "
                       "functions it calls: field accesses in files outside the project's folders, in member "
                       "functions not called on its elements and through other pointer types are not seen",
                       functions_[i].isKernel ? "kernel" : "device function", functions_[i].name,
                       type.getAsString(context_.getPrintingPolicy()), param->getName().str()));
    }
  }
}

void SiteCollector::collect(UnitFindings& findings) {
  markElementParameters();
  TraverseDecl(context_.getTranslationUnitDecl());
  reportUnusedStructParameters();
  resolveClones();

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
  for (size_t i = 0; i < functions_.size(); ++i) functions_[i].kernels.assign(reachedBy[i].begin(), reachedBy[i].end());
  for (auto& [name, info] : structs_) {
    // Absolute now: relative names are relative to the compile command's folder, the working
    // folder only while the tool runs.
    llvm::SmallString<256> path(info.location.file);
    if (!path.empty() && !llvm::sys::fs::real_path(info.location.file, path)) info.location.file = path.str().str();
    findings.structs.emplace(name, std::move(info));
  }
  findings.functions = std::move(functions_);
  for (auto& [path, file] : files_) findings.files[path] = std::move(file);
}

}  // namespace relayout
