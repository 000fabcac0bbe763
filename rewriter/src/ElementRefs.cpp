// An element bound to a non-const reference: `S& e = p[i];` or `f(p[i])` with `void f(S& e)`.
// Nothing in the new layout is an S, so the reference becomes `relayoutRef(p, i)`, a struct of
// references to the element's fields (`SSoARef`, LayoutEmitter.cpp). Code written for `S&` reads
// and writes `e.f` through it unchanged; a copy (`S c = e;`, passing by value or by const
// reference) gathers through its conversion to S and `e = v;` scatters; a member function is
// called on a gathered copy (scattered back after a non-const one). A function taking `S&`
// gets an overload taking the proxy, written once right after its definition, so that calls with
// an element of the original layout (a host reference copy) keep calling the original. Where the
// reference escapes (its address taken, returned, `auto` copies, templates),
// the struct is refused with the reason.
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <algorithm>

namespace relayout::rw {

namespace {

bool isNonConstRefTo(clang::QualType type, const clang::RecordDecl* record) {
  if (!type->isLValueReferenceType() || type->getPointeeType().isConstQualified()) return false;
  const clang::RecordDecl* pointee = type->getPointeeType()->getAsRecordDecl();
  return pointee && pointee->getCanonicalDecl() == record->getCanonicalDecl();
}

// A function template's parameter `index` is `S&` in the template itself (`template <class Tally>
// int flight(Neutron& n, ..., Tally& t)`): every instance binds the element the same way, so one
// template overload taking the proxy serves them all.
bool nonDependentRefParam(const clang::FunctionDecl* specialization, unsigned index, const clang::RecordDecl* record) {
  const clang::FunctionDecl* pattern = specialization->getTemplateInstantiationPattern();
  if (!pattern || !pattern->getDescribedFunctionTemplate() || index >= pattern->getNumParams()) return false;
  return isNonConstRefTo(pattern->getParamDecl(index)->getType(), record);
}

// The proxy's name as code anywhere can write it: the struct's enclosing named scopes, then the
// device struct's name and "Ref".
std::string refTypeName(const clang::RecordDecl* record, const std::string& deviceName) {
  std::string scope;
  for (const clang::DeclContext* dc = record->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(dc); ns && !ns->isAnonymousNamespace())
      scope = ns->getNameAsString() + "::" + scope;
    else if (const auto* outer = llvm::dyn_cast<clang::RecordDecl>(dc); outer && outer->getIdentifier())
      scope = outer->getNameAsString() + "::" + scope;
  }
  return scope + deviceName + "Ref";
}

}  // namespace

void UseCollector::keepFieldsWhole(const EntityInfo& info, const clang::Expr* at, const std::string& what) {
  for (const DeviceArray& array : info.planned->layout->arrays)
    if (array.splittable) keepWhole(info, array.fields[0], what, at);
}

std::optional<std::pair<std::string, clang::SourceRange>> UseCollector::checkRefUses(
    const clang::ValueDecl* var, const clang::Stmt* scope, const EntityInfo& info,
    std::vector<const clang::FunctionDecl*>& calls, std::vector<Edit>& edits) {
  const clang::RecordDecl* record = info.planned->definition;
  std::string name = "'" + var->getNameAsString() + "'";
  for (const clang::DeclRefExpr* ref : referencesTo(scope, var)) {
    const clang::Stmt* child = ref;
    const clang::Stmt* parent = climbPast(context_, child, isParenOrNoOpCast);
    auto range = ref->getSourceRange();
    if (!parent) return std::pair{name + " is used where relayout cannot follow it", range};
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent)) {
      if (llvm::isa<clang::FieldDecl>(member->getMemberDecl()) && !member->isArrow()) {
        // A field of a multi-field cluster through the cluster's record (`e.T` -> `e.T_k.T`), so
        // that nvcc sees its alignment; a field whose name comes from a macro keeps its reference.
        const DeviceArray* array = info.planned->layout->arrayOf(member->getMemberDecl()->getNameAsString());
        if (array && !array->clusterStruct.empty())
          edits_.insertBefore(member->getMemberLoc(), array->member + ".", edits);
        continue;
      }
      if (!member->isArrow() && refMemberCall(ref, member, recordName(record), info, edits)) continue;
      return std::pair{"the member function '" + member->getMemberDecl()->getNameAsString() + "' is called on " + name +
                           ", a reference to an element, and its value is used; relayout rewrites such a call as "
                           "a statement of its own or through a const member function",
                       member->getSourceRange()};
    }
    if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent)) {
      if (construct->getNumArgs() != 1 || !construct->getConstructor()->isCopyOrMoveConstructor())
        return std::pair{name + " is passed to a constructor", construct->getSourceRange()};
      auto up = context_.getParents(*construct);
      const auto* copy = up.empty() ? nullptr : up[0].get<clang::VarDecl>();
      if (copy && copy->getType()->getContainedAutoType())
        return std::pair{"'auto' copies " + name +
                             "; relayout would make that copy a reference too: write the struct's name instead of "
                             "'auto'",
                         copy->getSourceRange()};
      continue;  // a copy: the proxy converts to the struct
    }
    if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(parent);
        op && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2 && op->getArg(0)->IgnoreParens() == child)
      continue;  // `e = v;` scatters v
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(parent)) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      const clang::ParmVarDecl* param = parameterOf(call, child);
      if (!param || llvm::isa<clang::CXXOperatorCallExpr>(call))
        return std::pair{name + " is passed to a call relayout cannot follow", call->getSourceRange()};
      if (callee->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate &&
          !nonDependentRefParam(callee, param->getFunctionScopeIndex(), record))
        return std::pair{name + " is passed to the template '" + callee->getNameAsString() +
                             "', whose parameter depends on its template parameters and would be instantiated "
                             "for the reference proxy",
                         call->getSourceRange()};
      if (isNonConstRefTo(param->getType(), record)) {
        calls.push_back(callee);
        continue;
      }
      if (param->getType()->isLValueReferenceType() && param->getType()->getPointeeType().isConstQualified())
        continue;  // bound to a gathered copy
      return std::pair{name + " is passed to '" + callee->getNameAsString() + "' as '" +
                           param->getType().getAsString(context_.getPrintingPolicy()) + "'",
                       call->getSourceRange()};
    }
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent);
        unary && unary->getOpcode() == clang::UO_AddrOf)
      return std::pair{"the address of " + name +
                           ", a reference to an element, is taken; an element has no single address in the new "
                           "layout",
                       unary->getSourceRange()};
    if (llvm::isa<clang::ReturnStmt>(parent))
      return std::pair{name + ", a reference to an element, is returned", parent->getSourceRange()};
    return std::pair{name + ", a reference to an element, is used as a whole here", parent->getSourceRange()};
  }
  return std::nullopt;
}

std::optional<std::string> UseCollector::cloneForElementRefs(const clang::FunctionDecl* function,
                                                             const EntityInfo& info, std::vector<Edit>& out) {
  // An instance of a function template: the overload is a template too, written once for all.
  const clang::FunctionTemplateDecl* tmpl = nullptr;
  if (const clang::FunctionDecl* pattern = function->getTemplateInstantiationPattern();
      pattern && function->getTemplatedKind() == clang::FunctionDecl::TK_FunctionTemplateSpecialization &&
      (tmpl = pattern->getDescribedFunctionTemplate()))
    function = pattern;
  function = function->getCanonicalDecl();
  if (auto known = refClones_.find(function); known != refClones_.end()) {
    if (known->second) return *known->second;
    out.insert(out.end(), refCloneEdits_[function].begin(), refCloneEdits_[function].end());
    return std::nullopt;
  }
  std::string name = "'" + function->getNameAsString() + "'";
  refClones_[function] = name + " is recursive";  // until it is read
  auto refuse = [&](const std::string& why) { return refClones_[function] = why, std::optional<std::string>(why); };
  const clang::FunctionDecl* definition = function->getDefinition();
  if (!definition || !definition->hasBody() || sm_.isInSystemHeader(definition->getLocation()))
    return refuse(name + ", which takes an element by reference, is not defined in the sources");
  if (llvm::isa<clang::CXXMethodDecl>(definition))
    return refuse("the member function " + name +
                  " takes an element by reference; relayout writes overloads for free functions only");
  if (definition->getTemplatedKind() !=
      (tmpl ? clang::FunctionDecl::TK_FunctionTemplate : clang::FunctionDecl::TK_NonTemplate))
    return refuse(name + " takes an element by reference and is a member template or one of its instances");
  if (tmpl && (tmpl->getPreviousDecl() || tmpl->getTemplatedDecl() != definition))
    return refuse(name +
                  " takes an element by reference and is declared before its definition; relayout writes its "
                  "overload after the definition, which those calls would not see");
  if (definition->getPreviousDecl())
    return refuse(name +
                  " takes an element by reference and is declared before its definition; relayout writes its "
                  "overload after the definition, which those calls would not see");
  const clang::RecordDecl* record = info.planned->definition;
  if (!record) return refuse(name + " takes an element of a struct this unit does not define");
  auto begin = edits_.written(sm_.getExpansionLoc(tmpl ? tmpl->getBeginLoc() : definition->getBeginLoc()));
  auto end = edits_.written(definition->getEndLoc());
  if (!begin || !end || sm_.getFileID(*begin) != sm_.getFileID(*end))
    return refuse(name + " takes an element by reference and is not written out in one file");
  if (!afterDefinition(info, *begin))
    return refuse(name + " takes an element by reference and comes before the definition of '" +
                  info.planned->plan->name + "' ends");
  // The line the definition starts on, from its first token (CUDA attributes, `static`, `inline`).
  std::string file = edits_.filePath(*begin);
  llvm::StringRef data = edits_.fileData(*begin);
  unsigned from = sm_.getFileOffset(*begin);
  while (from > 0 && data[from - 1] != '\n') --from;
  if (!data.slice(from, sm_.getFileOffset(*begin)).trim().empty())
    return refuse(name + " takes an element by reference and does not start its line");
  unsigned to = sm_.getFileOffset(*end) + edits_.tokenLength(*end);

  std::vector<Edit> local;  // in the clone's text, relative to `from`
  std::vector<const clang::FunctionDecl*> calls;
  std::vector<Edit> callEdits;  // member calls through the parameters, in the file's offsets
  std::string proxy = refTypeName(record, info.planned->layout->deviceName);
  for (const clang::ParmVarDecl* param : definition->parameters()) {
    if (!isNonConstRefTo(param->getType(), record)) {
      const auto* other =
          param->getType()->getPointeeType().isNull() ? nullptr : param->getType()->getPointeeType()->getAsRecordDecl();
      if (param->getType()->isReferenceType() && other && structs_.planned(other) &&
          !param->getType()->getPointeeType().isConstQualified())
        return refuse(name + " also takes '" + recordName(other) + "' by reference");
      continue;
    }
    if (auto why = checkRefUses(param, definition->getBody(), info, calls, callEdits)) return refuse(why->first);
    clang::TypeSourceInfo* tsi = param->getTypeSourceInfo();
    auto typeBegin = tsi ? edits_.written(tsi->getTypeLoc().getBeginLoc()) : std::nullopt;
    auto typeEnd = tsi ? edits_.written(tsi->getTypeLoc().getEndLoc()) : std::nullopt;
    if (!typeBegin || !typeEnd)
      return refuse(name + "'s parameter '" + param->getNameAsString() + "' has its type from a macro");
    unsigned a = sm_.getFileOffset(*typeBegin), b = sm_.getFileOffset(*typeEnd) + edits_.tokenLength(*typeEnd);
    local.push_back(Edit{file, a - from, b - a, 0, proxy});
  }
  for (const clang::FunctionDecl* callee : calls) {
    if (callee->getCanonicalDecl() == function) return refuse(name + " is recursive");
    const clang::FunctionDecl* calleeDef = callee->getDefinition();
    if (!calleeDef || !sm_.isBeforeInTranslationUnit(calleeDef->getEndLoc(), *begin))
      return refuse(name + " passes its element to '" + callee->getNameAsString() + "', defined after it");
    if (auto why = cloneForElementRefs(callee, info, out)) return refuse(*why);
  }
  ComposedText clone;
  clone.file = file;
  clone.slice = data.slice(from, to).str();
  clone.edits = local;
  for (Edit& e : clone.edits) e.offset += from;
  clone.edits.insert(clone.edits.end(), callEdits.begin(), callEdits.end());
  std::sort(clone.edits.begin(), clone.edits.end());
  clone.from = from;
  auto text = composeText(clone, [](const std::string&) { return true; });
  if (!text) return refuse(name + "'s overload could not be composed");
  clone.at = to;
  clone.header = "\n\n// Generated by relayout: " + name + " for elements of " + info.planned->layout->deviceName +
                 " arrays (through " + proxy + ").\n";
  Edit edit{file, to, 0, 0, clone.header + *text};
  facts_.proxyClones.push_back(std::move(clone));
  refClones_[function] = std::nullopt;
  refCloneEdits_[function] = {edit};
  out.push_back(edit);
  return std::nullopt;
}

bool UseCollector::refMemberCall(const clang::DeclRefExpr* ref, const clang::MemberExpr* member,
                                 const std::string& type, const EntityInfo& info, std::vector<Edit>& edits) {
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
  const auto* call = llvm::dyn_cast_or_null<clang::CXXMemberCallExpr>(parentOf(member));
  if (!method || method->isStatic() || !call || call->getCallee()->IgnoreParens() != member) return false;
  std::vector<Edit> mine;
  if (method->isConst()) {
    // `e.m(args)` -> `S(e).m(args)`: the proxy's conversion gathers a copy to ask.
    if (!edits_.insertBefore(ref->getBeginLoc(), type + "(", mine) || !edits_.insertAfter(ref->getEndLoc(), ")", mine))
      return false;
  } else {
    // `e.m(args);` -> `{ S relayoutElement = e; relayoutElement.m(args); e = relayoutElement; }`, or
    // `e.x_ = relayoutElement.x_;` for each field x_ that m can write, when that is not all of them.
    const std::string name = edits_.text(ref->getSourceRange());
    if (name.empty()) return false;
    auto some = partialWriteBack(call, info, [&](const std::string& field) { return name + "." + field; });
    if (!isStatement(call) || !callOnElementCopy(call, ref, type + " relayoutElement = " + name + "; ",
                                                 some ? *some : name + " = relayoutElement;", mine))
      return false;
  }
  edits.insert(edits.end(), mine.begin(), mine.end());
  return true;
}

std::optional<std::pair<std::string, clang::SourceRange>> UseCollector::rewriteElementRef(
    const ElementExpr& element, const clang::Stmt* parent, const clang::Decl* parentDecl, const EntityInfo& info,
    std::vector<Edit>& out, bool& byRow) {
  std::vector<Edit> mine;
  clang::SourceRange here = element.expr->getSourceRange();
  if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent)) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return std::pair{"this element is passed by reference through a call relayout cannot follow", here};
    if (auto why = cloneForElementRefs(callee, info, mine)) return std::pair{*why, here};
  } else if (const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(parentDecl)) {
    std::string name = "'" + var->getNameAsString() + "'";
    const auto* function = llvm::dyn_cast<clang::FunctionDecl>(var->getDeclContext());
    if (!var->hasLocalStorage() || !function || !function->hasBody())
      return std::pair{name + " is a reference to an element outside a function body", var->getSourceRange()};
    auto stmts = context_.getParents(*var);
    const auto* declStmt = stmts.empty() ? nullptr : stmts[0].get<clang::DeclStmt>();
    if (!declStmt || !declStmt->isSingleDecl())
      return std::pair{name + " is declared together with other variables; declare it on its own",
                       var->getSourceRange()};
    std::vector<const clang::FunctionDecl*> calls;
    if (auto why = checkRefUses(var, function->getBody(), info, calls, mine)) return why;
    for (const clang::FunctionDecl* callee : calls)
      if (auto why = cloneForElementRefs(callee, info, mine)) return std::pair{*why, var->getSourceRange()};
    clang::TypeSourceInfo* tsi = var->getTypeSourceInfo();
    const DeviceLayout& layout = *info.planned->layout;
    const bool readOnly = element.readOnly();
    if (!tsi || !edits_.replaceTokens(
                    tsi->getTypeLoc().getSourceRange(),
                    refTypeName(info.planned->definition, readOnly ? layout.constName : layout.deviceName), mine))
      return std::pair{name + "'s type comes from a macro", var->getSourceRange()};
    // `const P& e` through the read-only view: its proxy is const itself, the `const` goes.
    clang::SourceLocation start = sm_.getExpansionLoc(var->getBeginLoc());
    if (auto type = edits_.written(tsi->getTypeLoc().getBeginLoc());
        readOnly && type && sm_.getFileID(start) == sm_.getFileID(*type))
      edits_.dropConsts(start, sm_.getFileOffset(*type), mine);
  } else {
    return std::pair{"this element is bound to a reference relayout cannot follow", here};
  }
  if (!elementCall(element, "relayoutRef", mine))
    return std::pair{"this element is not written out in the file (it comes from a macro body)", here};
  byRow = indexByRow(element.index, info, mine);
  keepFieldsWhole(info, element.expr, "is bound to a reference ('relayoutRef' needs one per element)");
  out.insert(out.end(), mine.begin(), mine.end());
  return std::nullopt;
}

}  // namespace relayout::rw
