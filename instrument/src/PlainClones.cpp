// What the plain clones need from one unit's walk (Collection.h, "Plain clones"): the text of each
// device function, the calls between them, and the host launches of the unit's kernels.
#include "SiteCollector.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Lex/Lexer.h>

namespace relayout {

namespace {

// Functions that get a copy: one with a name takes another (NAME__rl_plain); a call operator,
// which has no name to change, takes a first parameter of type __rl_plain_tag. Not constructors,
// destructors, other operators or conversions, not virtual (a copy would change the vtable), not
// lambdas (their calls cannot be marked).
std::optional<CloneMark> cloneMarkOf(const clang::FunctionDecl* fn) {
  if (fn->isMain() || fn->isDeleted() || fn->isDefaulted()) return std::nullopt;
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(fn)) {
    if (method->isVirtual() || method->getParent()->isLambda()) return std::nullopt;
    if (method->getParent()->isLocalClass()) return std::nullopt;
    if (method->getOverloadedOperator() == clang::OO_Call && !method->isStatic())
      return fn->getNumParams() > 0 ? CloneMark::taggedBeforeMore : CloneMark::tagged;
  }
  if (!fn->getDeclName().isIdentifier() || fn->getName().empty()) return std::nullopt;
  return CloneMark::renamed;
}

}  // namespace

// The file range [begin, end) of a declaration with its template header and specifiers.
std::optional<std::pair<FilePlace, unsigned>> SiteCollector::declarationRange(const clang::FunctionDecl* fn,
                                                                              bool definition) const {
  clang::SourceLocation begin = fn->getOuterLocStart();
  if (const clang::FunctionTemplateDecl* tmpl = fn->getDescribedFunctionTemplate()) begin = tmpl->getBeginLoc();
  const clang::LangOptions& lo = context_.getLangOpts();
  clang::CharSourceRange r = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(begin, fn->getSourceRange().getEnd()), sm_, lo);
  if (r.isInvalid()) return std::nullopt;
  clang::SourceLocation end = r.getEnd();
  if (!definition) {  // a declaration's copy also needs its `;`
    clang::SourceLocation last = clang::Lexer::GetBeginningOfToken(end.getLocWithOffset(-1), sm_, lo);
    end = clang::Lexer::findLocationAfterToken(last, clang::tok::semi, sm_, lo, false);
    if (end.isInvalid()) return std::nullopt;
  }
  auto from = projectPlace(r.getBegin()), to = projectPlace(end);
  if (!from || !to || from->file != to->file || to->offset <= from->offset) return std::nullopt;
  return std::make_pair(*from, to->offset);
}

std::optional<SiteCollector::Spelled> SiteCollector::spelledRange(clang::SourceRange range) const {
  clang::CharSourceRange r =
      clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(range), sm_, context_.getLangOpts());
  if (r.isInvalid()) return std::nullopt;
  auto from = projectPlace(r.getBegin()), to = projectPlace(r.getEnd());
  if (!from || !to || from->file != to->file) return std::nullopt;
  return Spelled{*from, to->offset, clang::Lexer::getSourceText(r, sm_, context_.getLangOpts())};
}

// The name token of a declaration or a reference, where it is spelled in a project file (a macro
// argument's spelling counts; a macro body's does not).
std::optional<FilePlace> SiteCollector::namePlace(clang::SourceLocation loc) const {
  if (loc.isMacroID()) {
    if (!sm_.isMacroArgExpansion(loc)) return std::nullopt;
    loc = sm_.getSpellingLoc(loc);
  }
  return projectPlace(loc);
}

// Where a declaration's copy is marked (CloneMark): after its name, or after the `(` of its
// parameter list, in `file`.
std::optional<unsigned> SiteCollector::cloneMarkPlace(const clang::FunctionDecl* fn, CloneMark mark,
                                                      const std::string& file) const {
  std::optional<FilePlace> place;
  unsigned after = 0;
  if (mark == CloneMark::renamed) {
    place = namePlace(fn->getLocation());
    after = unsigned(fn->getName().size());
  } else {
    const clang::FunctionTypeLoc type = fn->getFunctionTypeLoc();
    if (type.isNull() || type.getLParenLoc().isMacroID()) return std::nullopt;
    // `operator()(void)` would take the tag before `void`: such a declaration keeps no copy.
    if (mark == CloneMark::tagged) {
      std::optional<clang::Token> next = clang::Lexer::findNextToken(type.getLParenLoc(), sm_, context_.getLangOpts());
      if (!next || !next->is(clang::tok::r_paren)) return std::nullopt;
    }
    place = projectPlace(type.getLParenLoc());
    after = 1;
  }
  if (!place || place->file != file) return std::nullopt;
  return place->offset + after;
}

void SiteCollector::notePlainClone(const clang::FunctionDecl* written) {
  if (clonePlaces_.count(written)) return;
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(written->getBody());
  auto range = declarationRange(written, true);
  auto open = body ? projectPlace(body->getLBracLoc()) : std::nullopt;
  auto close = body ? projectPlace(body->getRBracLoc()) : std::nullopt;
  if (!range || !open || !close || open->file != range->first.file || close->file != range->first.file ||
      close->offset >= range->second)
    return;
  const std::optional<CloneMark> mark = cloneMarkOf(written);
  const std::optional<unsigned> markAt = mark ? cloneMarkPlace(written, *mark, range->first.file) : std::nullopt;
  RawFunctionText text;
  text.begin = range->first.offset;
  text.end = range->second;
  text.definition = true;
  // Without a copy, its range still tells whether calls to it reach hooks.
  const unsigned markOffset = markAt.value_or(0);
  text.cloneable = markOffset > text.begin && markOffset <= open->offset;
  if (text.cloneable) text.markAt = markOffset, text.mark = *mark;
  text.kernel = written->hasAttr<clang::CUDAGlobalAttr>();
  text.bodyBegin = open->offset;
  text.bodyEnd = close->offset + 1;
  if (text.kernel) noteKernelBranch(written, body, *open, text);
  text.definitionPlace = range->first;
  if (text.kernel) noteGridConstants(written, text);
  clonePlaces_[written] = range->first;
  FileFindings& file = files_[range->first.file];
  file.path = range->first.file;
  file.functionTexts[text.begin] = text;
  if (!text.cloneable) return;

  // Every other declaration written in a project file gets its copy too.
  for (const clang::FunctionDecl* redecl : written->redecls()) {
    if (redecl == written || redecl->isThisDeclarationADefinition() || redecl->getFriendObjectKind()) continue;
    auto declRange = declarationRange(redecl, false);
    if (!declRange) continue;
    std::optional<unsigned> declMark = cloneMarkPlace(redecl, text.mark, declRange->first.file);
    if (!declMark || *declMark <= declRange->first.offset || *declMark >= declRange->second) continue;
    RawFunctionText decl;
    decl.begin = declRange->first.offset;
    decl.end = declRange->second;
    decl.markAt = *declMark;
    decl.mark = text.mark;
    decl.definitionPlace = range->first;
    FileFindings& declFile = files_[declRange->first.file];
    declFile.path = declRange->first.file;
    declFile.functionTexts[decl.begin] = decl;
  }
}

// The `(` that opens the arguments after a called object or pointer, where it is spelled in a
// project file: a call operator's copy is marked after it.
std::optional<FilePlace> SiteCollector::openParenAfter(const clang::Expr* called) const {
  std::optional<clang::Token> paren = clang::Lexer::findNextToken(called->getEndLoc(), sm_, context_.getLangOpts());
  return paren && paren->is(clang::tok::l_paren) ? namePlace(paren->getLocation()) : std::nullopt;
}

// Every call in device code is noted where its copy's mark would go, so that a call some
// instantiation or unit cannot mark (a library functor, a lambda) is marked in none.
void SiteCollector::noteCall(const clang::Expr* call, const clang::FunctionDecl* callee) {
  if (!callee) return;
  const bool inProject = isProjectDeviceFunction(callee);
  PendingCall pending;
  pending.callee = inProject ? writtenCallee(callee) : nullptr;
  const std::optional<CloneMark> mark = cloneMarkOf(callee);
  std::optional<FilePlace> place;
  bool renamable = false;
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call)) {
    // `object(args)`: the mark goes after the `(` that follows the object.
    if (op->getOperator() == clang::OO_Call && op->getNumArgs() > 0) {
      place = openParenAfter(op->getArg(0));
      const bool written = op->getNumArgs() > 1 && !llvm::isa<clang::CXXDefaultArgExpr>(op->getArg(1));
      pending.mark = written ? CloneMark::taggedBeforeMore : CloneMark::tagged;
      pending.markLength = 1;
      renamable = place && mark && *mark != CloneMark::renamed;
    }
  } else if (const auto* c = llvm::dyn_cast<clang::CallExpr>(call)) {
    const clang::Expr* target = c->getCallee()->IgnoreParenImpCasts();
    clang::SourceLocation nameLoc;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(target)) {
      nameLoc = ref->getLocation();
      renamable = !llvm::isa<clang::UsingShadowDecl>(ref->getFoundDecl());
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target)) {
      nameLoc = member->getMemberLoc();
      renamable = !llvm::isa<clang::UsingShadowDecl>(member->getFoundDecl().getDecl());
    }
    place = nameLoc.isValid() ? namePlace(nameLoc) : std::nullopt;
    pending.markLength = callee->getDeclName().isIdentifier() ? unsigned(callee->getName().size()) : 0;
    renamable = renamable && place && mark == CloneMark::renamed;
    pending.localObjects = renamable && inProject && reachesOnlyLocalObjects(c, callee);
  }
  if (!place) {
    if (!inProject) return;
    // Still recorded, by the call's start, so that a clone holding it turns the hooks off.
    place = projectPlace(sm_.getExpansionLoc(call->getBeginLoc()));
    if (!place) return;
    renamable = false;
  }
  pending.at = *place;
  pending.renamable = renamable && inProject;
  pendingCalls_.push_back(std::move(pending));
}

// A call through a pointer (`quantity(c)` where an instantiation passes a device function's
// address): where another instantiation calls a functor there, its mark would not compile here.
void SiteCollector::noteIndirectCall(const clang::CallExpr* call) {
  std::optional<FilePlace> place = openParenAfter(call->getCallee());
  if (!place) return;
  PendingCall pending;
  pending.at = *place;
  pending.markLength = 1;
  pending.mark = CloneMark::tagged;
  pendingCalls_.push_back(std::move(pending));
}

bool SiteCollector::isProjectDeviceFunction(const clang::FunctionDecl* fn) const {
  const clang::FunctionDecl* definition = writtenFunction(fn)->getDefinition();
  return definition && isDeviceFunction(definition) && inProjectFile(definition->getLocation());
}

const clang::FunctionDecl* SiteCollector::writtenCallee(const clang::FunctionDecl* fn) {
  const clang::FunctionDecl* written = writtenFunction(fn);
  const clang::FunctionDecl* definition = written->getDefinition();
  return definition ? definition : written;
}

bool SiteCollector::VisitCXXConstructExpr(clang::CXXConstructExpr* e) {
  if (function_ && !inConstexpr_) noteCall(e, e->getConstructor());
  return true;
}

bool SiteCollector::VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr* launch) {
  if (function_) return true;  // a launch from device code runs the kernel as instrumented
  const clang::FunctionDecl* kernel = launch->getDirectCallee();
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(launch->getCallee()->IgnoreParenImpCasts());
  const clang::CallExpr* config = launch->getConfig();
  if (!kernel || !ref || !config || config->getNumArgs() < 1 || ref->hadMultipleCandidates()) return true;
  // A kernel template's instantiation must be named to take its address: deduced arguments are
  // spelled out (`census` -> `census<InState>`) where they can be.
  std::string deduced;
  if (kernel->getTemplateSpecializationArgs() && !ref->hasExplicitTemplateArgs()) {
    std::optional<std::string> args = spelledTemplateArguments(kernel);
    if (!args) return true;
    deduced = *args;
  }
  auto callee = spelledRange(ref->getSourceRange());
  auto grid = spelledRange(config->getArg(0)->IgnoreImplicit()->getSourceRange());
  auto name = namePlace(ref->getLocation());
  if (!callee || !grid || !name || grid->place.file != callee->place.file || name->file != callee->place.file)
    return true;
  PendingLaunch pending;
  pending.kernel = writtenCallee(kernel);
  pending.launch.calleeBegin = callee->place.offset;
  pending.launch.calleeEnd = callee->end;
  pending.launch.nameAt = name->offset;
  pending.launch.nameLength = unsigned(kernel->getName().size());
  pending.launch.gridBegin = grid->place.offset;
  pending.launch.gridEnd = grid->end;
  pending.launch.templateArguments = deduced;
  pending.file = callee->place.file;
  pendingLaunches_.push_back(std::move(pending));
  return true;
}

// `<float, 4>`: a kernel instantiation's arguments as code at its launch, or none where one cannot
// be named there (a lambda, a local or unnamed type, a pack, a template template argument).
std::optional<std::string> SiteCollector::spelledTemplateArguments(const clang::FunctionDecl* kernel) const {
  const clang::TemplateArgumentList* args = kernel->getTemplateSpecializationArgs();
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  std::string out;
  for (const clang::TemplateArgument& arg : args->asArray()) {
    std::string text;
    if (arg.getKind() == clang::TemplateArgument::Type) {
      const clang::Type* base = arg.getAsType()->getPointeeOrArrayElementType();
      if (const clang::TagDecl* tag = base->getAsTagDecl())
        if (tag->getDeclContext()->isFunctionOrMethod() || !tag->getIdentifier()) return std::nullopt;
      if (base->isDependentType()) return std::nullopt;
      text = clang::TypeName::getFullyQualifiedName(arg.getAsType(), context_, policy, true);
    } else if (arg.getKind() == clang::TemplateArgument::Integral) {
      text = llvm::toString(arg.getAsIntegral(), 10);
      if (arg.getIntegralType()->isBooleanType()) text = arg.getAsIntegral().getBoolValue() ? "true" : "false";
    } else {
      return std::nullopt;
    }
    out += (out.empty() ? "" : ", ") + text;
  }
  return "<" + out + ">";
}

// After the walk, when every function that has a clone is known: calls and launches name them by
// their definitions' places.
void SiteCollector::resolveClones() {
  std::set<std::pair<std::string, unsigned>> conflictingLaunches;
  for (const PendingCall& pending : pendingCalls_) {
    FileFindings& file = files_[pending.at.file];
    file.path = pending.at.file;
    auto [it, added] = file.calls.try_emplace(pending.at.offset);
    RawCall& call = it->second;
    call.markAt = pending.at.offset + pending.markLength;
    call.mark = pending.mark;
    call.renamable = (added || call.renamable) && pending.renamable;
    call.localObjects = (added || call.localObjects) && pending.localObjects;
    if (!pending.callee) continue;  // outside the project: no hooks, no copy
    auto place = clonePlaces_.find(pending.callee);
    call.callees.insert(place != clonePlaces_.end() ? place->second : FilePlace{});
  }
  for (PendingLaunch& pending : pendingLaunches_) {
    auto place = clonePlaces_.find(pending.kernel);
    const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(pending.kernel->getBody());
    std::optional<FilePlace> brace = body ? projectPlace(body->getLBracLoc()) : std::nullopt;
    if (place == clonePlaces_.end() || !brace) continue;
    pending.launch.kernel = place->second;
    pending.launch.kernelEntry = {brace->file, brace->offset + 1};
    FileFindings& file = files_[pending.file];
    file.path = pending.file;
    // One text for every instantiation of a host template that launches: a launch whose spelled
    // arguments differ between them keeps the instrumented kernel.
    auto [it, added] = file.launches.try_emplace(pending.launch.calleeBegin, pending.launch);
    if (!added && it->second.templateArguments != pending.launch.templateArguments)
      conflictingLaunches.insert({pending.file, it->first});
  }
  for (const auto& [path, calleeBegin] : conflictingLaunches) files_[path].launches.erase(calleeBegin);
}

}  // namespace relayout
