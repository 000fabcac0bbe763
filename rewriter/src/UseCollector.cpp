// Entities and the uses of them this version rewrites: field accesses p[i].f and p->f, pointer
// copies and views (`q = p`, `p + off`), members holding device arrays, calls that pass an entity
// to an S* parameter, and sizeof(*p). Runtime calls: RuntimeCalls.cpp; anything else is refused in
// DeclEdits.cpp / UseDescription.cpp.
#include "UseCollector.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/Index/USRGeneration.h>

#include <algorithm>
#include <iterator>

namespace relayout::rw {

std::string refusalPrefix(const std::string& structName) {
  return "cannot change the layout of '" + structName + "': ";
}

std::string usrOf(const clang::Decl* decl) {
  llvm::SmallString<128> buffer;
  if (clang::index::generateUSRForDecl(decl, buffer)) return "";
  return buffer.str().str();
}

void UseCollector::collect() {
  TraverseDecl(context_.getTranslationUnitDecl());
  emitRestrictLocals();
  checkDeclarationGroups();
  checkFunctionReferences();
  checkOverloadCalls();
  refuseUnconsumed();
}

bool UseCollector::TraverseDecl(clang::Decl* decl) {
  if (decl && !llvm::isa<clang::TranslationUnitDecl>(decl) && sm_.isInSystemHeader(decl->getLocation())) return true;
  return RecursiveASTVisitor::TraverseDecl(decl);
}

const UseCollector::EntityInfo* UseCollector::entityOf(const clang::ValueDecl* decl) {
  if (!decl) return nullptr;
  auto known = entities_.find(decl);
  if (known != entities_.end()) return known->second ? &*known->second : nullptr;
  std::optional<EntityInfo> info;
  const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(decl);
  // A member of a planned struct itself (`S* next` in S) is not one: its struct's own definition
  // would change under it.
  if (field && (field->getParent()->isUnion() || structs_.planned(field->getParent()))) field = nullptr;
  if (((var && !var->isImplicit()) || field) && !sm_.isInSystemHeader(decl->getLocation()) &&
      decl->getType()->isPointerType()) {
    if (const clang::RecordDecl* record = decl->getType()->getPointeeType()->getAsRecordDecl()) {
      if (const PlannedStruct* planned = structs_.planned(record)) {
        std::string key;
        if (auto instances = var ? instanceKey(var) : std::nullopt) {
          // In a template rewritten in its own text: one entity for all instances that hold this struct
          // (`T* device` in a helper template holds a different one per instance).
          key = *instances + "/" + planned->plan->name;
        } else if (const auto* parm = llvm::dyn_cast_or_null<clang::ParmVarDecl>(var)) {
          if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(parm->getDeclContext()))
            if (std::string usr = usrOf(function->getCanonicalDecl()); !usr.empty())
              key = usr + "#" + std::to_string(parm->getFunctionScopeIndex());
        } else {
          key = usrOf(var ? static_cast<const clang::Decl*>(var->getCanonicalDecl()) : field->getCanonicalDecl());
        }
        if (!key.empty()) {
          info = EntityInfo{key, planned};
          facts_.entities[key].structName = planned->plan->name;
        }
      }
    }
  }
  auto& slot = entities_[decl] = info;
  return slot ? &*slot : nullptr;
}

const UseCollector::EntityInfo* UseCollector::entityOfRef(const clang::Expr* ref) {
  if (!ref) return nullptr;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(ref)) return returnEntityOf(call->getDirectCallee());
  return entityOf(namedDecl(ref));
}

const clang::ValueDecl* UseCollector::namedDecl(const clang::Expr* ref) {
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(ref)) return call->getDirectCallee();
  if (const auto* declRef = llvm::dyn_cast<clang::DeclRefExpr>(ref)) return declRef->getDecl();
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(ref))
    return llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  return nullptr;
}

const clang::Expr* UseCollector::directRef(const clang::Expr* expr) {
  for (;;) {
    expr = expr->IgnoreParens();
    const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(expr);
    if (!cast || (cast->getCastKind() != clang::CK_LValueToRValue && cast->getCastKind() != clang::CK_NoOp)) break;
    expr = cast->getSubExpr();
  }
  return entityOfRef(expr) ? expr : nullptr;
}

const clang::Expr* UseCollector::runtimeArgRef(const clang::Expr* expr) {
  expr = expr->IgnoreParenImpCasts();
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(expr); cast && cast->getType()->isVoidPointerType())
    expr = cast->getSubExpr()->IgnoreParenImpCasts();
  return entityOfRef(expr) ? expr : nullptr;
}

UseCollector::EntityExpr UseCollector::entityExpr(const clang::Expr* expr, bool runtimeArg) {
  if (const clang::Expr* ref = runtimeArg ? runtimeArgRef(expr) : directRef(expr)) return {ref, entityOfRef(ref)};
  expr = expr->IgnoreParenImpCasts();
  if (runtimeArg)
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(expr); cast && cast->getType()->isVoidPointerType())
      expr = cast->getSubExpr()->IgnoreParenImpCasts();
  // `&p[off]`: an element's address is the array moved by off, as `p + off`.
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr); unary && unary->getOpcode() == clang::UO_AddrOf)
    if (const auto* element = llvm::dyn_cast<clang::ArraySubscriptExpr>(unary->getSubExpr()->IgnoreParens()))
      if (const clang::Expr* ref = directRef(element->getBase()); ref && element->getType()->isRecordType())
        return {ref, entityOfRef(ref), element->getIdx(), unary};
  const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr);
  if (!binary || binary->getOpcode() != clang::BO_Add || !binary->getRHS()->getType()->isIntegerType()) return {};
  const clang::Expr* ref = directRef(binary->getLHS());
  if (!ref) return {};
  return {ref, entityOfRef(ref), binary->getRHS()};
}

bool UseCollector::rewriteEntityExpr(const EntityExpr& e, std::vector<Edit>& out) {
  consume(e.ref);
  if (!e.offset) return true;
  if (e.addressOf) {
    // `&p[off]` -> `relayoutOffset(p, off)`: the `&` and what follows it up to the element go.
    const auto* element = llvm::cast<clang::ArraySubscriptExpr>(e.addressOf->getSubExpr()->IgnoreParens());
    auto amp = edits_.written(e.addressOf->getOperatorLoc()), begin = edits_.written(element->getBeginLoc());
    if (!amp || !begin) return false;
    auto gap = edits_.between(*amp, *begin);
    std::vector<Edit> mine;
    if (!gap || gap->trim() != "&" || !elementCall(ElementExpr::of(element), "relayoutOffset", mine)) return false;
    mine.push_back(edits_.rawEdit(*amp, gap->size(), ""));
    out.insert(out.end(), mine.begin(), mine.end());
    return true;
  }
  auto refEnd = edits_.written(e.ref->getEndLoc()), offsetBegin = edits_.written(e.offset->getBeginLoc());
  if (!refEnd || !offsetBegin) return false;
  clang::SourceLocation afterRef = refEnd->getLocWithOffset(edits_.tokenLength(*refEnd));
  auto gap = edits_.between(afterRef, *offsetBegin);
  if (!gap || gap->trim() != "+") return false;
  std::vector<Edit> mine;
  if (!edits_.insertBefore(e.ref->getBeginLoc(), "relayoutOffset(", mine) ||
      !edits_.insertAfter(e.offset->getEndLoc(), ")", mine))
    return false;
  mine.push_back(edits_.rawEdit(afterRef, gap->size(), ", "));
  out.insert(out.end(), mine.begin(), mine.end());
  return true;
}

void UseCollector::addEdits(const EntityInfo& info, const std::vector<Edit>& out, unsigned helpers) {
  Entity& e = entity(info);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  e.helpers |= helpers;
}

UseCollector::Stored UseCollector::storeValue(const clang::Expr* value, const EntityInfo& target,
                                              std::vector<Edit>& out) {
  if (value->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull))
    return edits_.replaceExpansion(value->getSourceRange(), "{}", out) ? Stored::kDone : Stored::kInMacro;
  // `S* p = f(std::vector<S>(n))`: the temporaries' cleanup wraps the value.
  if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(value)) value = cleanups->getSubExpr();
  EntityExpr source = entityExpr(value);
  if (!source || source.info->planned != target.planned) return Stored::kOther;
  if (source.offset && !afterDefinition(target, value->getBeginLoc())) return Stored::kBeforeDefinition;
  if (!rewriteEntityExpr(source, out)) return Stored::kInMacro;
  facts_.links.emplace_back(target.key, source.info->key);
  if (source.offset) entity(target).helpers |= kOffset;
  return Stored::kDone;
}

void UseCollector::refuse(const EntityInfo& info, clang::SourceLocation loc, const std::string& why,
                          clang::SourceRange range) {
  entity(info).refusals.push_back(diags_.warning(loc, refusalPrefix(info.planned->plan->name) + why, range));
}

void UseCollector::refuseUnfollowedValue(const EntityInfo& info, clang::SourceLocation loc, const std::string& why,
                                         clang::SourceRange range) {
  refuse(info, loc, why, range);
  entity(info).unfollowedValue = entity(info).refusals.back();
}

bool UseCollector::afterDefinition(const EntityInfo& info, clang::SourceLocation loc) const {
  return info.planned->definition && sm_.isBeforeInTranslationUnit(info.planned->definitionEnd, loc);
}

bool UseCollector::VisitVarDecl(clang::VarDecl* var) {
  if (!llvm::isa<clang::ParmVarDecl>(var) && var->getBeginLoc().isValid() && !var->isImplicit())
    groups_[{reading(), var->getBeginLoc().getRawEncoding()}].push_back(var);
  if (const EntityInfo* info = entityOf(var)) declareEntity(var, *info);
  return true;
}

bool UseCollector::VisitFieldDecl(clang::FieldDecl* field) {
  if (field->getBeginLoc().isValid()) groups_[{reading(), field->getBeginLoc().getRawEncoding()}].push_back(field);
  if (const EntityInfo* info = entityOf(field)) declareEntity(field, *info);
  return true;
}

bool UseCollector::VisitDeclRefExpr(clang::DeclRefExpr* ref) {
  if (entityOf(ref->getDecl())) {
    refs_.push_back(ref);
  } else if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl())) {
    if (returnEntityOf(function) ||
        llvm::any_of(function->parameters(), [&](const clang::ParmVarDecl* p) { return entityOf(p) != nullptr; }))
      functionRefs_.push_back(ref);
  }
  return true;
}

// `q = p` and `q = p + off` between two entities of one struct: the device struct is copied like
// the pointer was (it holds pointers to the same arrays), so the two change layout together.
bool UseCollector::VisitBinaryOperator(clang::BinaryOperator* binary) {
  if (rewriteNullComparison(binary) || binary->getOpcode() != clang::BO_Assign) return true;
  const clang::Expr* lhs = directRef(binary->getLHS());
  EntityExpr rhs = entityExpr(binary->getRHS());
  if (!lhs || !rhs || entityOfRef(lhs)->planned != rhs.info->planned) return true;
  const EntityInfo& info = *entityOfRef(lhs);
  std::vector<Edit> out;
  consume(lhs);
  if (rhs.offset && !afterDefinition(info, binary->getBeginLoc()))
    return refuse(info, binary->getExprLoc(),
                  "this assignment comes before the definition of '" + info.planned->plan->name +
                      "' ends, where relayoutOffset is added",
                  binary->getSourceRange()),
           true;
  if (!rewriteEntityExpr(rhs, out))
    return refuse(info, binary->getExprLoc(),
                  "this assignment is not written out in the file (it comes from a macro body)",
                  binary->getSourceRange()),
           true;
  facts_.links.emplace_back(info.key, rhs.info->key);
  addEdits(info, out, rhs.offset ? unsigned(kOffset) : 0u);
  return true;
}

// A constructor's member initializer for an entity member, other than `p()` / `p{}`, would not
// fit the device struct.
bool UseCollector::VisitCXXConstructorDecl(clang::CXXConstructorDecl* ctor) {
  for (const clang::CXXCtorInitializer* init : ctor->inits()) {
    const clang::FieldDecl* field = init->getMember();
    const EntityInfo* info = field && init->isWritten() ? entityOf(field) : nullptr;
    if (!info) continue;
    const clang::Expr* value = init->getInit();
    if (llvm::isa<clang::ImplicitValueInitExpr>(value)) continue;
    refuse(*info, init->getSourceLocation(),
           "'" + field->getNameAsString() +
               "' is initialized in a constructor's member initializer list (not handled yet)",
           init->getSourceRange());
  }
  return true;
}

// `Holder h = {d, n}` / `Holder h{}` for a struct with entity members: a null pointer becomes `{}`,
// an entity (or `p + off`) links the two, anything else keeps the member's type.
bool UseCollector::VisitInitListExpr(clang::InitListExpr* list) {
  const clang::InitListExpr* semantic = list->isSemanticForm() ? list : list->getSemanticForm();
  const auto* record = semantic ? semantic->getType()->getAsRecordDecl() : nullptr;
  if (!record || record->isUnion() || !lists_.insert(semantic).second) return true;
  if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record); cxx && cxx->getNumBases()) return true;
  unsigned i = 0;
  for (const clang::FieldDecl* field : record->fields()) {
    if (i >= semantic->getNumInits()) break;
    const clang::Expr* init = semantic->getInit(i++);
    const EntityInfo* info = entityOf(field);
    if (!info || !init || llvm::isa<clang::ImplicitValueInitExpr>(init)) continue;
    std::vector<Edit> out;
    Stored stored = storeValue(init, *info, out);
    if (stored == Stored::kOther) {
      std::string text = edits_.text(init->getSourceRange());
      refuse(*info, init->getBeginLoc(),
             "member '" + field->getNameAsString() + "' is initialized with '" + (text.empty() ? "..." : text) +
                 "'; only a null pointer or an array of '" + info->planned->plan->name + "' can be rewritten",
             init->getSourceRange());
    } else if (stored != Stored::kDone) {
      refuse(*info, init->getBeginLoc(),
             "the initializer of member '" + field->getNameAsString() +
                 "' is not written out in the file (it comes from a macro body)",
             init->getSourceRange());
    } else {
      addEdits(*info, out);
    }
  }
  return true;
}

// A call in a template that names a function with entity parameters: its arguments are not known.
bool UseCollector::VisitUnresolvedLookupExpr(clang::UnresolvedLookupExpr* lookup) {
  for (const clang::NamedDecl* decl : lookup->decls())
    if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(decl->getUnderlyingDecl()))
      for (const clang::ParmVarDecl* parm : function->parameters())
        if (const EntityInfo* info = entityOf(parm))
          refuse(
              *info, lookup->getBeginLoc(),
              "'" + function->getNameAsString() + "' is called from template code, which relayout does not rewrite yet",
              lookup->getSourceRange());
  return true;
}

// p[i].f -> p.f[i] (a plain array) or p.cluster[i].f; p->f -> p.f[0] or p.cluster->f. A plain array's
// array field access may also be split by index (ArrayFields.cpp).
bool UseCollector::VisitMemberExpr(clang::MemberExpr* member) {
  if (llvm::isa<clang::CXXMethodDecl>(member->getMemberDecl()) && member->isArrow()) {
    const clang::Expr* ref = directRef(member->getBase());
    if (const EntityInfo* info = entityOfRef(ref); info && info->planned->layout) rewriteArrowCall(member, ref, *info);
    return true;
  }
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (!field) return true;
  if (entityOf(field)) refs_.push_back(member);  // `d.p`, `this->p`: a use of the member entity
  const clang::ArraySubscriptExpr* subscript = nullptr;
  const clang::Expr* ref = nullptr;
  if (member->isArrow()) ref = directRef(member->getBase());
  else if ((subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(member->getBase()->IgnoreParens())))
    ref = directRef(subscript->getBase());
  const EntityInfo* info = entityOfRef(ref);
  noteFieldAddress(member, info);
  if (!info) return true;
  consume(ref);
  if (!info->planned->layout) return true;
  const DeviceArray* array = info->planned->layout->arrayOf(field->getNameAsString());
  if (!array) return true;
  bool plain = array->clusterStruct.empty();
  // The access through `local` (a restrict local's name) or through the device struct.
  auto rewrite = [&](const std::optional<std::string>& local, std::vector<Edit>& out) {
    bool ok = true;
    if (local) {
      // p[i].f -> p_f[i], p->f -> p_f[0]; p[i].f -> p_c[i].f, p->f -> p_c->f (cluster c).
      ok = edits_.replaceTokens(ref->getSourceRange(), *local, out);
      if (ok && plain && subscript) {
        clang::SourceLocation bracket = *edits_.written(subscript->getRBracketLoc());
        auto gap = edits_.between(bracket.getLocWithOffset(1), *edits_.written(member->getMemberLoc()));
        ok = gap && gap->trim() == "." &&
             edits_.removeAfterUpTo(subscript->getRBracketLoc(), member->getMemberLoc(), out);
      } else if (ok && plain) {
        ok = edits_.replaceTokens({member->getOperatorLoc(), member->getMemberLoc()}, "[0]", out);
      }
    } else if (subscript) {
      ok = edits_.insertAfter(subscript->getBase()->getEndLoc(), "." + array->member, out);
      if (ok && plain) {
        clang::SourceLocation bracket = *edits_.written(subscript->getRBracketLoc());
        auto gap = edits_.between(bracket.getLocWithOffset(1), *edits_.written(member->getMemberLoc()));
        ok = gap && gap->trim() == "." &&
             edits_.removeAfterUpTo(subscript->getRBracketLoc(), member->getMemberLoc(), out);
      }
    } else {
      ok = edits_.replaceTokens(member->getOperatorLoc(), plain ? "." : "." + array->member + "->", out);
      if (ok && plain) ok = edits_.insertAfter(member->getMemberLoc(), "[0]", out);
    }
    return ok;
  };
  std::vector<Edit> out, plainOut;
  bool ok = edits_.writtenRange({member->getBeginLoc(), member->getMemberLoc()});
  std::optional<std::string> local = ok ? restrictLocal(ref, *array) : std::nullopt;
  // A restrict local relayout infers: both forms, the whole program picks one.
  bool both = local && inferredRestrict(ref);
  ok = ok && rewrite(local, out) && (!both || rewrite(std::nullopt, plainOut));
  if (ok && subscript && info->planned->layout->transposeWidth) {
    std::vector<Edit> index;
    ok = transposedIndex(subscript, ref, *info->planned->layout, index);
    out.insert(out.end(), index.begin(), index.end());
    plainOut.insert(plainOut.end(), index.begin(), index.end());
  }
  if (!ok)
    return refuse(*info, member->getExprLoc(),
                  "this access to '" + namedDecl(ref)->getNameAsString() +
                      "' comes from a macro body; relayout edits only code written in the file or in macro arguments",
                  member->getSourceRange()),
           true;
  Entity& e = entity(*info);
  // Records the access in one form: `form` marks every edit and field form it adds.
  auto record = [&](const std::optional<std::string>& access, std::vector<Edit> edits, Edit::Form form) {
    size_t edits0 = e.edits.size(), forms0 = e.forms.size();
    if (splittable(field, *info)) recordArrayAccess(member, subscript, ref, *info, access, std::move(edits));
    else e.edits.insert(e.edits.end(), edits.begin(), edits.end());
    for (size_t i = edits0; i < e.edits.size(); ++i) e.edits[i].restrictForm = form;
    for (size_t i = forms0; i < e.forms.size(); ++i)
      for (auto* list : {&e.forms[i].split, &e.forms[i].kept})
        for (Edit& edit : *list) edit.restrictForm = form;
  };
  if (!both) return record(local, std::move(out), Edit::kAlways), true;
  record(local, std::move(out), Edit::kWithRestrict);
  record(std::nullopt, std::move(plainOut), Edit::kWithoutRestrict);
  return true;
}

bool UseCollector::VisitCallExpr(clang::CallExpr* call) {
  callees_.insert(call->getCallee()->IgnoreParenImpCasts());
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee || llvm::isa<clang::CXXOperatorCallExpr>(call)) return true;
  noteReturningCall(call, callee);
  if (!handleRuntimeCall(call, callee)) handleUserCall(call, callee);
  return true;
}

// sizeof(*p) and sizeof(p[i]) name the original struct.
bool UseCollector::VisitUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* expr) {
  if (expr->getKind() != clang::UETT_SizeOf || expr->isArgumentType()) return true;
  const clang::Expr* arg = expr->getArgumentExpr()->IgnoreParens();
  const clang::Expr* ref = nullptr;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(arg); unary && unary->getOpcode() == clang::UO_Deref)
    ref = directRef(unary->getSubExpr());
  else if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(arg))
    ref = directRef(subscript->getBase());
  const EntityInfo* info = entityOfRef(ref);
  if (!info) return true;
  consume(ref);
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;  // no "(anonymous namespace)::"
  std::string type = clang::TypeName::getFullyQualifiedName(arg->getType().getUnqualifiedType(), context_, policy);
  std::vector<Edit> out;
  if (!edits_.replaceTokens(expr->getSourceRange(), "sizeof(" + type + ")", out))
    return refuse(*info, expr->getBeginLoc(), "this sizeof is not written out in the file (it comes from a macro body)",
                  expr->getSourceRange()),
           true;
  Entity& e = entity(*info);
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  return true;
}

// Passing an entity (or `p + off`) to an S* parameter of a plain function (kernel, __device__ or
// host) links the two; an S* parameter that receives anything else must keep its type.
void UseCollector::handleUserCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  if (handleSwap(call, callee) || handleCopyInto(call, callee) || sm_.isInSystemHeader(callee->getLocation()) ||
      handleTemplateCall(call, callee))
    return;
  bool plain =
      (callee->getTemplatedKind() == clang::FunctionDecl::TK_NonTemplate && !llvm::isa<clang::CXXMethodDecl>(callee)) ||
      rewrittenTemplate(callee);
  std::map<const PlannedStruct*, std::set<unsigned>> device;  // per struct, the parameters given its new arrays
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
    const clang::Expr* arg = call->getArg(i);
    EntityExpr argEntity = entityExpr(arg);
    const EntityInfo* paramInfo = plain ? entityOf(callee->getParamDecl(i)) : nullptr;
    if (paramInfo) {
      std::set<unsigned>& given = device[paramInfo->planned];
      if (argEntity && argEntity.info->planned == paramInfo->planned) given.insert(i);
    }
    if (argEntity && paramInfo && argEntity.info->planned == paramInfo->planned) {
      std::vector<Edit> out;
      if (argEntity.offset && !afterDefinition(*paramInfo, call->getBeginLoc()))
        refuse(*paramInfo, arg->getBeginLoc(),
               "this argument comes before the definition of '" + paramInfo->planned->plan->name +
                   "' ends, where relayoutOffset is added",
               arg->getSourceRange());
      else if (!rewriteEntityExpr(argEntity, out))
        refuse(*paramInfo, arg->getBeginLoc(),
               "this argument is not written out in the file (it comes from a macro body)", arg->getSourceRange());
      facts_.links.emplace_back(argEntity.info->key, paramInfo->key);
      addEdits(*paramInfo, out, argEntity.offset ? unsigned(kOffset) : 0u);
      noteArrayCall(call, callee, *paramInfo);
    } else if (paramInfo && !argEntity && !handleBufferCast(arg, *paramInfo)) {
      auto why = keepForOtherCallers(callee, *paramInfo);
      if (!why) continue;
      std::string text = edits_.text(arg->getSourceRange());
      refuse(*paramInfo, arg->getBeginLoc(),
             "'" + callee->getNameAsString() + "' is called here with '" + (text.empty() ? "an argument" : text) +
                 "', which is not a variable relayout rewrites, and " + *why,
             arg->getSourceRange());
    }
  }
  for (auto& [planned, given] : device)
    callPatterns_[{callee->getCanonicalDecl(), planned}].push_back({call, std::move(given)});
}

// A function with an overload for the new layout serves calls that give it the new layout's arrays
// in every parameter any call gives them in (the overload) or in none (the original). A call that
// gives them in some of those parameters only, as a copy helper used in both directions does
// (`copy(dst, src)` with the device array first, then second), matches neither: refused, saying so.
void UseCollector::checkOverloadCalls() {
  for (const auto& [key, calls] : callPatterns_) {
    const auto& [callee, planned] = key;
    std::set<unsigned> all;
    for (const ParamPattern& c : calls) all.insert(c.device.begin(), c.device.end());
    auto names = [&](const std::set<unsigned>& params) {
      std::string text;
      for (unsigned i : params) text += (text.empty() ? "'" : ", '") + callee->getParamDecl(i)->getNameAsString() + "'";
      return text;
    };
    for (const ParamPattern& c : calls) {
      if (c.device.empty() || c.device == all) continue;
      const EntityInfo* param = entityOf(callee->getParamDecl(*all.begin()));
      if (!param) continue;
      std::set<unsigned> others;
      std::set_difference(all.begin(), all.end(), c.device.begin(), c.device.end(),
                          std::inserter(others, others.end()));
      refuse(*param, c.call->getBeginLoc(),
             "'" + callee->getNameAsString() + "' is given the new layout's arrays here in " + names(c.device) +
                 " and by another call in " + names(others) + "; relayout's one overload for the new layout " +
                 "takes them in all of " + names(all) + ", so this call would match neither it nor the " +
                 "original (a function for each direction would serve)",
             c.call->getSourceRange());
      break;
    }
  }
}

// `f` takes device arrays and is called here with another pointer: the original stays for such
// calls and the new layout's arrays get an overload (DualUseFunctions.cpp). Why it cannot.
std::optional<std::string> UseCollector::keepForOtherCallers(const clang::FunctionDecl* callee,
                                                             const EntityInfo& param) {
  auto place = overloadPlace(callee, param);
  if (auto* why = std::get_if<std::string>(&place)) return *why;
  const auto& function = std::get<DualUseFunction>(place);
  facts_.dualUse[{function.file, function.from}] = function;
  return std::nullopt;
}

// Where `callee`'s definition is, to stay beside an overload for the new layout; else why not.
std::variant<DualUseFunction, std::string> UseCollector::overloadPlace(const clang::FunctionDecl* callee,
                                                                       const EntityInfo& param) {
  const std::string name = "'" + callee->getNameAsString() + "'";
  const std::string cannot = "relayout cannot keep " + name + " for such calls beside an overload for the new layout: ";
  const clang::FunctionDecl* definition = callee->getDefinition();
  if (!definition || !definition->hasBody() || sm_.isInSystemHeader(definition->getLocation()))
    return cannot + "it is not defined in the sources";
  if (llvm::isa<clang::CXXMethodDecl>(definition)) return cannot + "it is a member function";
  // A template rewritten in its own text (the struct named directly, `const Sphere* s`) is copied
  // whole, `template <...>` included: the copy is a template overload that calls with explicit
  // arguments (`shade<Phong>(...)`) still choose by the argument types.
  const clang::FunctionTemplateDecl* tmpl = rewrittenTemplate(definition);
  if (!tmpl && definition->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate)
    return cannot + "it is a template or one of its instances";
  if (tmpl) {
    const clang::FunctionDecl* pattern = tmpl->getTemplatedDecl()->getDefinition();
    tmpl = pattern ? pattern->getDescribedFunctionTemplate() : nullptr;
    if (!tmpl) return cannot + "its template is not defined in the sources";
  }
  if (tmpl ? tmpl->getPreviousDecl() != nullptr : definition->getPreviousDecl() != nullptr)
    return cannot + "it is declared before its definition, and those calls would not see the overload";
  auto begin = edits_.written(sm_.getExpansionLoc(tmpl ? tmpl->getBeginLoc() : definition->getBeginLoc()));
  auto end = edits_.written(tmpl ? tmpl->getTemplatedDecl()->getEndLoc() : definition->getEndLoc());
  if (!begin || !end || sm_.getFileID(*begin) != sm_.getFileID(*end))
    return cannot + "it is not written out in one file";
  if (!afterDefinition(param, *begin))
    return cannot + "it comes before the definition of '" + param.planned->plan->name + "' ends";
  llvm::StringRef data = edits_.fileData(*begin);
  unsigned from = sm_.getFileOffset(*begin);
  while (from > 0 && data[from - 1] != '\n') --from;
  if (!data.slice(from, sm_.getFileOffset(*begin)).trim().empty()) return cannot + "it does not start its line";
  return DualUseFunction{name, edits_.filePath(*begin), from, sm_.getFileOffset(*end) + edits_.tokenLength(*end)};
}

// Recorded for the whole program (ArrayCall): if the function around this call is kept for other
// callers, the callee must be kept too.
void UseCollector::noteArrayCall(const clang::CallExpr* call, const clang::FunctionDecl* callee,
                                 const EntityInfo& param) {
  auto at = edits_.written(sm_.getExpansionLoc(call->getBeginLoc()));
  if (!at) return;
  ArrayCall noted{edits_.filePath(*at), sm_.getFileOffset(*at), param.key, std::nullopt, {}};
  auto place = overloadPlace(callee, param);
  if (auto* function = std::get_if<DualUseFunction>(&place)) noted.callee = *function;
  else
    noted.refusal =
        diags_.warning(call->getBeginLoc(),
                       refusalPrefix(param.planned->plan->name) + "'" + callee->getNameAsString() +
                           "' is called here from a function that stays for callers with other pointers, and " +
                           std::get<std::string>(place),
                       call->getSourceRange());
  facts_.arrayCalls.push_back(std::move(noted));
}

// `std::swap(a, b)` of two arrays of one struct (double buffering): the device structs swap as the
// pointers did, so the two change layout together and the call stays.
bool UseCollector::handleSwap(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  if (call->getNumArgs() != 2 || !callee->isInStdNamespace() || callee->getName() != "swap") return false;
  const clang::Expr* a = directRef(call->getArg(0));
  const clang::Expr* b = directRef(call->getArg(1));
  if (!a || !b || entityOfRef(a)->planned != entityOfRef(b)->planned) return false;
  consume(a);
  consume(b);
  facts_.links.emplace_back(entityOfRef(a)->key, entityOfRef(b)->key);
  return true;
}

}  // namespace relayout::rw
