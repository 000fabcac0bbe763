// Whole elements of a device array. A copy of one (`P q = p[i];`, `auto q = p[i];`, `q = p[i];`,
// `f(p[i])` by value or by const reference, `const P& r = p[i]`, `p[i].get()` with a const member
// function) gathers its fields with `relayoutLoad(p, i)`, which returns the original struct by
// value: the callee reads the same values. A statement calling a non-const member function,
// `p[i].m(args);`, calls it on a gathered copy and scatters back the fields m can write (the thread is taken to
// own the element while it runs, as a kernel's p[i].m() with i its own index does). A statement `p[i] = q;` scatters q's fields with
// `relayoutStore(p, i, q)`. An element bound to a non-const reference becomes a struct of
// references to its fields (ElementRefs.cpp). Its address, `&p[i]`, is the view `p + i`
// (UseCollector::entityExpr). A host vector made of a range of elements,
// `std::vector<P> v(p, p + n)`, gathers them with `relayoutGatherVector(p, 0, n)`.
#include "UseCollector.h"
#include "LayoutEmitter.h"
#include "StructScanner.h"
#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/MethodWrites.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Lex/Lexer.h>

namespace relayout::rw {

const clang::Stmt* UseCollector::parentOf(const clang::Stmt* node) { return parentStmt(context_, node); }

bool UseCollector::VisitArraySubscriptExpr(clang::ArraySubscriptExpr* subscript) {
  const clang::Expr* ref = directRef(subscript->getBase());
  const EntityInfo* info = entityOfRef(ref);
  if (!info || !info->planned->layout || !subscript->getType()->isRecordType()) return true;
  rewriteWholeElement(ElementExpr::of(subscript), ref, *info);
  return true;
}

// `*p`, p an entity, is its element 0 where the whole element is used: `f(*p)`, `*p = v`, `S& e = *p`.
bool UseCollector::VisitUnaryOperator(clang::UnaryOperator* unary) {
  if (unary->getOpcode() != clang::UO_Deref || !unary->getType()->isRecordType()) return true;
  const clang::Expr* ref = directRef(unary->getSubExpr());
  const EntityInfo* info = entityOfRef(ref);
  if (!info || !info->planned->layout) return true;
  rewriteWholeElement({unary, unary->getSubExpr(), nullptr}, ref, *info);
  return true;
}

// `std::vector<S>(p + a, p + b)` (an offset may be absent), S the entity's struct and the default
// allocator: the arguments become `relayoutGatherVector(p, a, b)`, whose vector the constructor moves.
bool UseCollector::VisitCXXConstructExpr(clang::CXXConstructExpr* construct) {
  const unsigned args = construct->getNumArgs();
  if (args < 2 || args > 3 || (args == 3 && !llvm::isa<clang::CXXDefaultArgExpr>(construct->getArg(2)))) return true;
  const auto* vector = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      construct->getType()->getAsCXXRecordDecl());
  if (!vector || !vector->isInStdNamespace() || vector->getName() != "vector") return true;
  EntityExpr first = entityExpr(construct->getArg(0)), last = entityExpr(construct->getArg(1));
  if (!first || !last || first.addressOf || last.addressOf || first.info != last.info) return true;
  const clang::TemplateArgumentList& targs = vector->getTemplateArgs();
  const auto* allocator = targs.size() == 2 ? targs[1].getAsType()->getAsCXXRecordDecl() : nullptr;
  clang::QualType element = first.ref->getType()->getPointeeType();
  if (element.isNull() || !allocator || !allocator->isInStdNamespace() || allocator->getName() != "allocator" ||
      !context_.hasSameUnqualifiedType(targs[0].getAsType(), element))
    return true;
  const std::string array = edits_.text(first.ref->getSourceRange());
  if (array.empty() || array != edits_.text(last.ref->getSourceRange())) return true;
  consume(first.ref);
  consume(last.ref);
  const EntityInfo& info = *first.info;
  auto offsetText = [&](const EntityExpr& e) { return e.offset ? edits_.text(e.offset->getSourceRange()) : "0"; };
  std::string begin = offsetText(first), end = offsetText(last);
  std::vector<Edit> out;
  clang::SourceRange range(construct->getArg(0)->getBeginLoc(), construct->getArg(1)->getEndLoc());
  if (!afterDefinition(info, construct->getBeginLoc()))
    return refuse(info, construct->getBeginLoc(), "this vector is made before the definition of '" +
                  info.planned->plan->name + "' ends, where relayoutGatherVector is added", range), true;
  if (begin.empty() || end.empty() ||
      !edits_.replaceTokens(range, "relayoutGatherVector(" + array + ", " + begin + ", " + end + ")", out))
    return refuse(info, construct->getBeginLoc(), "this vector's range is not written out in the file (it comes "
                  "from a macro body)", range), true;
  addEdits(info, out, kLoad | kGatherVector);
  return true;
}

bool UseCollector::handleCopyInto(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  if (call->getNumArgs() != 3 || !callee->isInStdNamespace() || callee->getName() != "copy") return false;
  EntityExpr target = entityExpr(call->getArg(2));
  if (!target || !target.info->planned->layout) return false;
  const EntityInfo& info = *target.info;
  auto refuseHere = [&](const std::string& why) {
    consume(target.ref);
    refuse(info, call->getBeginLoc(), why, call->getSourceRange());
    return true;
  };
  if (!isStatement(call))
    return refuseHere("the iterator std::copy returns into '" + namedDecl(target.ref)->getNameAsString() +
                      "' is used; relayout rewrites such a copy only as a statement of its own");
  if (!afterDefinition(info, call->getBeginLoc()))
    return refuseHere("this std::copy comes before the definition of '" + info.planned->plan->name +
                      "' ends, where relayoutStoreRange is added");
  std::vector<Edit> out;
  if (!edits_.replaceTokens(call->getCallee()->getSourceRange(), "relayoutStoreRange", out) ||
      !rewriteEntityExpr(target, out))
    return refuseHere("this std::copy is not written out in the file (it comes from a macro body)");
  addEdits(info, out, kStore | kStoreRange | (target.offset ? unsigned(kOffset) : 0u));
  return true;
}

bool UseCollector::elementCall(const ElementExpr& element, const std::string& helper, std::vector<Edit>& out) {
  auto baseBegin = edits_.written(element.base->getBeginLoc()), baseEnd = edits_.written(element.base->getEndLoc());
  if (!baseBegin || !baseEnd) return false;
  clang::SourceLocation afterBase = baseEnd->getLocWithOffset(edits_.tokenLength(*baseEnd));
  std::vector<Edit> mine;
  if (!element.index) {
    // `*p` -> `helper(p, 0)`: the star (and any space after it) becomes the call's opening.
    auto star = edits_.written(element.expr->getBeginLoc());
    auto gap = star ? edits_.between(*star, *baseBegin) : std::nullopt;
    if (!gap || gap->trim() != "*") return false;
    mine.push_back(edits_.rawEdit(*star, gap->size(), helper + "("));
    mine.push_back(edits_.rawEdit(afterBase, 0, ", 0)"));
    out.insert(out.end(), mine.begin(), mine.end());
    return true;
  }
  const auto* subscript = llvm::cast<clang::ArraySubscriptExpr>(element.expr);
  const clang::Expr* index = element.index;
  auto indexBegin = edits_.written(index->getBeginLoc()), indexEnd = edits_.written(index->getEndLoc());
  auto rbracket = edits_.written(subscript->getRBracketLoc());
  if (!indexBegin || !indexEnd || !rbracket) return false;
  clang::SourceLocation afterIndex = indexEnd->getLocWithOffset(edits_.tokenLength(*indexEnd));
  auto open = edits_.between(afterBase, *indexBegin);
  auto close = edits_.between(afterIndex, rbracket->getLocWithOffset(1));
  if (!open || open->trim() != "[" || !close || close->trim() != "]") return false;
  if (!edits_.insertBefore(subscript->getBeginLoc(), helper + "(", mine)) return false;
  mine.push_back(edits_.rawEdit(afterBase, open->size(), ", "));
  mine.push_back(edits_.rawEdit(afterIndex, close->size(), ")"));
  out.insert(out.end(), mine.begin(), mine.end());
  return true;
}

std::string UseCollector::indexText(const ElementExpr& element) {
  return element.index ? edits_.text(element.index->getSourceRange()) : "0";
}

const clang::ParmVarDecl* parameterOf(const clang::CallExpr* call, const clang::Stmt* arg) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee) return nullptr;
  unsigned first = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee) ? 1 : 0;
  for (unsigned i = first; i < call->getNumArgs(); ++i)
    if (call->getArg(i)->IgnoreParens() == arg || call->getArg(i) == arg)
      return i - first < callee->getNumParams() ? callee->getParamDecl(i - first) : nullptr;
  return nullptr;
}

static bool isConstLvalueRef(clang::QualType type) {
  return type->isLValueReferenceType() && type->getPointeeType().isConstQualified();
}

bool UseCollector::rewriteWholeElement(const ElementExpr& element, const clang::Expr* ref, const EntityInfo& info) {
  const clang::Expr* whole = element.expr;
  // Up through parentheses and no-op conversions to what uses the element.
  const clang::Stmt* child = whole;
  const clang::Decl* parentDecl = nullptr;  // `S e = p[i];`: the element initializes a declaration
  const clang::Stmt* parent = climbPast(context_, child, isElementWrapper, &parentDecl);
  if (!parent && !parentDecl) return false;
  bool load = false, store = false, reference = false, update = false, proxyForConstRef = false;
  const clang::Expr* value = nullptr;  // what a store writes
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent);
  const clang::ParmVarDecl* param = call ? parameterOf(call, child) : nullptr;
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(parentDecl);
  if (const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(parent)) {
    load = construct->getNumArgs() == 1 && construct->getConstructor()->isCopyOrMoveConstructor();
  } else if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(parent);
             op && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2) {
    if (op->getArg(1)->IgnoreParenImpCasts() == whole) load = true;
    else if (op->getArg(0)->IgnoreParens() == whole) {
      // A statement: its value is not used. `p[i] = f(...)` wraps the statement in the cleanup of f's
      // temporary, which is not a use.
      const clang::Stmt* user = parentOf(op);
      while (user && llvm::isa<clang::ExprWithCleanups>(user)) user = parentOf(user);
      store = !user || !llvm::isa<clang::Expr>(user);
      value = op->getArg(1);
    }
  } else if (param && param->getType()->isLValueReferenceType()) {
    // Bound to a reference parameter: a const one reads a gathered copy, a non-const one a proxy.
    (isConstLvalueRef(param->getType()) ? load : reference) = true;
  } else if (var && var->getInit() && var->getType()->isLValueReferenceType()) {
    // A local `const S& e = p[i];` becomes the proxy too where the layout allows one (no array field
    // split by index): its uses then read only the fields they name, where they name them, as the
    // original did; a gathered copy reads every field up front, also those a branch never reaches
    // (kmeans' `if (p.cluster != c) continue;` before the other fields). Otherwise it reads a copy.
    const bool constRef = isConstLvalueRef(var->getType());
    (constRef ? load : reference) = true;
    proxyForConstRef = constRef && var->hasLocalStorage() &&
                       llvm::none_of(info.planned->layout->arrays, [](const DeviceArray& a) { return a.splittable; });
  } else if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent)) {
    // `p[i].get()`: a const member function reads a gathered copy.
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
    load = method && method->isConst() && !method->isStatic();
    const auto* memberCall = llvm::dyn_cast_or_null<clang::CXXMemberCallExpr>(parentOf(member));
    update = method && !method->isConst() && !method->isStatic() && memberCall && isStatement(memberCall) &&
             !(element.index && element.index->HasSideEffects(context_));
    if (update) parent = memberCall;
  } else if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(parent);
             op && op->getNumArgs() >= 1 && op->getArg(0)->IgnoreParens() == child) {
    // `p[i] + q` through a const member operator.
    const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
    load = method && method->isConst() && !method->isStatic();
  }
  if (!load && !store && !reference && !update) return false;
  const auto* record = llvm::dyn_cast_or_null<clang::CXXRecordDecl>(info.planned->definition);
  if ((load || update) && record && !record->hasDefaultConstructor()) return false;  // relayoutLoad starts from `S v;`
  if (!afterDefinition(info, whole->getBeginLoc())) return false;

  std::vector<Edit> out;
  auto fail = [&] {
    refuse(info, whole->getExprLoc(), "this whole element of '" + namedDecl(ref)->getNameAsString() +
           "' is not written out in the file (it comes from a macro body)", whole->getSourceRange());
    consume(ref);
    return true;
  };
  bool byRow = false;  // relayoutRef by row and entry (indexByRow)
  if (reference) {
    auto why = rewriteElementRef(element, parent, parentDecl, info, out, byRow);
    consume(ref);
    if (why) return refuse(info, why->second.getBegin(), why->first, why->second), true;
    addEdits(info, out, byRow ? kRefByRow : kRef);
    return true;
  }
  if (proxyForConstRef) {
    // Whatever the proxy cannot serve (the reference escapes) still reads a gathered copy.
    if (!rewriteElementRef(element, parent, parentDecl, info, out, byRow)) {
      consume(ref);
      const bool readOnly = element.readOnly();
      addEdits(info, out, byRow ? (readOnly ? kConstRefByRow : kRefByRow) : (readOnly ? kConstRef : kRef));
      return true;
    }
    out.clear();
  }
  if (update) {
    unsigned helpers = 0;
    if (!rewriteElementUpdate(element, llvm::cast<clang::CXXMemberCallExpr>(parent), info, out, helpers)) return fail();
    consume(ref);
    addEdits(info, out, helpers);
    return true;
  }
  unsigned helper = load ? kLoad : kStore;  // or the by-row overload (indexByRow)
  if (load) {
    // p[i] -> relayoutLoad(p, i)
    if (!elementCall(element, "relayoutLoad", out)) return fail();
    if (indexByRow(element.index, info, out)) helper = kLoadByRow;
    // `const S& e = p[i]` -> `const S e = relayoutLoad(p, i)`: the copy is the variable, not a
    // temporary a reference is bound to (which a reviewer reads as a dangling reference).
    if (var && isConstLvalueRef(var->getType()) && var->getTypeSourceInfo())
      if (auto ref = var->getTypeSourceInfo()->getTypeLoc().getAs<clang::LValueReferenceTypeLoc>())
        if (ref.getSigilLoc().isFileID() && !edits_.replaceTokens({ref.getSigilLoc(), ref.getSigilLoc()}, "", out))
          return fail();
  } else {
    // p[i] = v -> relayoutStore(p, i, v); *p = v -> relayoutStore(p, 0, v)
    auto valueBegin = edits_.written(value->getBeginLoc());
    auto baseBegin = edits_.written(element.base->getBeginLoc()), baseEnd = edits_.written(element.base->getEndLoc());
    if (!valueBegin || !baseBegin || !baseEnd) return fail();
    clang::SourceLocation afterBase = baseEnd->getLocWithOffset(edits_.tokenLength(*baseEnd));
    clang::SourceLocation afterElement = afterBase;  // where " = " starts
    std::string expectedGap = "=", between = ", 0, ";
    if (element.index) {
      auto indexBegin = edits_.written(element.index->getBeginLoc());
      auto indexEnd = edits_.written(element.index->getEndLoc());
      if (!indexBegin || !indexEnd) return fail();
      auto open = edits_.between(afterBase, *indexBegin);
      if (!open || open->trim() != "[") return fail();
      if (!edits_.insertBefore(element.expr->getBeginLoc(), "relayoutStore(", out)) return fail();
      out.push_back(edits_.rawEdit(afterBase, open->size(), ", "));
      afterElement = indexEnd->getLocWithOffset(edits_.tokenLength(*indexEnd));
      expectedGap = "]=", between = ", ";
      if (indexByRow(element.index, info, out)) helper = kStoreByRow;
    } else {
      auto star = edits_.written(element.expr->getBeginLoc());
      auto gap = star ? edits_.between(*star, *baseBegin) : std::nullopt;
      if (!gap || gap->trim() != "*") return fail();
      out.push_back(edits_.rawEdit(*star, gap->size(), "relayoutStore("));
    }
    if (!edits_.insertAfter(value->getEndLoc(), ")", out)) return fail();
    auto middle = edits_.between(afterElement, *valueBegin);  // "] = " or " = "
    if (!middle) return fail();
    std::string gap = middle->str();
    gap.erase(std::remove_if(gap.begin(), gap.end(), [](char c) { return c == ' ' || c == '\t'; }), gap.end());
    if (gap != expectedGap) return fail();
    out.push_back(edits_.rawEdit(afterElement, middle->size(), between));
  }
  consume(ref);
  addEdits(info, out, helper);
  return true;
}

bool UseCollector::isStatement(const clang::Expr* expr) {
  const clang::Stmt* child = expr;
  const clang::Stmt* parent = parentOf(expr);
  while (parent && llvm::isa<clang::ExprWithCleanups>(parent)) child = parent, parent = parentOf(parent);
  if (!parent) return false;
  if (llvm::isa<clang::CompoundStmt>(parent)) return true;
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(parent))
    return child == branch->getThen() || child == branch->getElse();
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(parent)) return child == loop->getBody();
  if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(parent)) return child == loop->getBody();
  if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(parent)) return child == loop->getBody();
  return false;
}

// `p[i].m(args);` -> `{ auto relayoutElement = relayoutLoad(p, i); relayoutElement.m(args);
// relayoutStore(p, i, relayoutElement); }`, or `relayoutRef(p, i).x_ = relayoutElement.x_;` for
// each field x_ that m can write, when that is not all of them: the arguments keep their place (and
// their own edits); the index, free of side effects, is read again.
bool UseCollector::rewriteElementUpdate(const ElementExpr& element, const clang::CXXMemberCallExpr* call,
                                        const EntityInfo& info, std::vector<Edit>& out, unsigned& helpers) {
  const std::string base = edits_.text(element.base->getSourceRange());
  const std::string index = indexText(element);
  if (base.empty() || index.empty()) return false;
  const std::string at = base + ", " + index;
  auto some = partialWriteBack(call, info, [&](const std::string& field) { return "relayoutRef(" + at + ")." + field; });
  helpers = some ? (kLoad | kRef) : (kLoad | kStore);
  return callOnElementCopy(call, element.expr, "auto relayoutElement = relayoutLoad(" + at + "); ",
                           some ? *some : "relayoutStore(" + at + ", relayoutElement);", out);
}

bool UseCollector::rewriteArrowCall(const clang::MemberExpr* member, const clang::Expr* ref, const EntityInfo& info) {
  const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
  const auto* call = llvm::dyn_cast_or_null<clang::CXXMemberCallExpr>(parentOf(member));
  if (!method || method->isStatic() || !call || call->getCallee()->IgnoreParens() != member) return false;
  const auto* record = llvm::dyn_cast_or_null<clang::CXXRecordDecl>(info.planned->definition);
  if (record && !record->hasDefaultConstructor()) return false;  // relayoutLoad starts from `S v;`
  if (!afterDefinition(info, member->getBeginLoc())) return false;
  const std::string base = edits_.text(ref->getSourceRange());
  if (base.empty()) return false;
  std::vector<Edit> out;
  unsigned helpers = kLoad;
  if (method->isConst()) {
    // `p->m(args)` -> `relayoutLoad(p, 0).m(args)`
    if (!edits_.replaceTokens(ref->getSourceRange(), "relayoutLoad(" + base + ", 0)", out) ||
        !edits_.replaceTokens(member->getOperatorLoc(), ".", out))
      return false;
  } else {
    // `p->m(args);` -> `{ auto relayoutElement = relayoutLoad(p, 0); relayoutElement.m(args); relayoutStore(p, 0, relayoutElement); }`
    // (or the fields m can write, as for `p[0].m(args);`)
    auto some = partialWriteBack(call, info, [&](const std::string& field) { return "relayoutRef(" + base + ", 0)." + field; });
    helpers = some ? (kLoad | kRef) : (kLoad | kStore);
    if (!isStatement(call) ||
        !callOnElementCopy(call, ref, "auto relayoutElement = relayoutLoad(" + base + ", 0); ",
                           some ? *some : "relayoutStore(" + base + ", 0, relayoutElement);", out) ||
        !edits_.replaceTokens(member->getOperatorLoc(), ".", out))
      return false;
  }
  consume(ref);
  addEdits(info, out, helpers);
  return true;
}

std::optional<std::string> UseCollector::partialWriteBack(const clang::CXXMemberCallExpr* call, const EntityInfo& info,
                                                          llvm::function_ref<std::string(const std::string&)> target) {
  const clang::CXXMethodDecl* method = call->getMethodDecl();
  const clang::CXXRecordDecl* record = call->getRecordDecl();
  if (!method || !record || !info.planned->layout || method->getParent()->getCanonicalDecl() != record->getCanonicalDecl())
    return std::nullopt;
  auto written = fieldsWrittenOnThis(context_, method);
  if (!written) return std::nullopt;
  std::vector<const clang::FieldDecl*> fields(record->field_begin(), record->field_end());
  // An array field has no assignment of its own; a field without a name no member in the proxy.
  for (const clang::FieldDecl* field : fields)
    if (field->getType()->isArrayType() || field->getName().empty()) return std::nullopt;
  if (written->size() >= fields.size()) return std::nullopt;
  const bool privateFields = llvm::any_of(fields, [](const clang::FieldDecl* f) { return keepsPrivate(f); });
  std::string text;
  for (const clang::FieldDecl* field : fields) {
    if (!written->count(field->getCanonicalDecl())) continue;
    const std::string name = field->getNameAsString();
    const std::string value = privateFields ? fieldAccessName(*info.planned->layout) + "::" + name + "(relayoutElement)"
                                            : "relayoutElement." + name;
    text += (text.empty() ? "" : " ") + target(name) + " = " + value + ";";
  }
  return text;
}

bool UseCollector::callOnElementCopy(const clang::CXXMemberCallExpr* call, const clang::Expr* object,
                                     const std::string& before, const std::string& after, std::vector<Edit>& out) {
  auto callEnd = edits_.written(call->getEndLoc());
  if (!callEnd) return false;
  clang::SourceLocation afterSemi = clang::Lexer::findLocationAfterToken(
      *callEnd, clang::tok::semi, sm_, edits_.langOptions(), /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (afterSemi.isInvalid()) return false;
  std::vector<Edit> mine;
  if (!edits_.insertBefore(call->getBeginLoc(), "{ " + before, mine) ||
      !edits_.replaceTokens(object->getSourceRange(), "relayoutElement", mine))
    return false;
  mine.push_back(edits_.rawEdit(afterSemi, 0, " " + after + " }"));
  out.insert(out.end(), mine.begin(), mine.end());
  return true;
}

}  // namespace relayout::rw
