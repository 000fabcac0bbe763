// Whether relayout may declare restrict locals that the user did not write: the proof.
//
// Relayout also declares such locals itself, for a parameter of a kernel or device function the
// user did not mark: in AoS the fields of one element cannot alias each other, and after the
// rewrite they are separate arrays of one block (relayoutPlace) that nvcc must otherwise assume
// may alias (it reloads and restores every field around every store). C11 6.7.3.1: if an object
// reached through a restrict pointer is modified during the block, every access to it in the
// block must go through that pointer. Relayout makes that promise only where it can prove it:
//   - the parameter is not assigned, moved or address-taken (changesParam), and every use of it
//     in the body is a field access (through the locals), a null test, sizeof, or a whole-element
//     copy (relayoutLoad, which reads the arrays past the locals) in a body that writes none of them;
//     a lambda capture, a call passing it on, a view, relayoutStore or relayoutRef gets no locals;
//   - nothing else in the body, nor in any function it calls (followed through their definitions,
//     which must be in the unit), can reach arrays of the struct: no other value whose type holds
//     a pointer to it (another parameter, local, global or member of another object, a lambda
//     holding one, a non-const element reference); no call through a pointer or virtual call, no
//     callable handed to library code, no inline assembly, no volatile access;
//   - no field address survives anywhere in the program (`float* px = &d[0].x`, `&p[i].x` passed
//     on; an atomic, a load/store intrinsic, a runtime copy or a function that only reads or
//     writes through a reference keep none): another pointer could then reach a field's array
//     (Entity::fieldAddress, decided with the whole program);
//   - no thread waits for another in the code (a barrier, fence, cooperative-groups sync, an
//     atomic with a memory order): nvcc keeps a restrict pointer's values in registers across a
//     barrier, where another thread's stores must be seen;
//   - the host-only parse sees the code as nvcc's device pass does: no preprocessor conditional
//     inside the bodies, no function or macro defined under `#if __CUDA_ARCH__`.
// A kernel gets locals for every array it uses. A device function gets them only for the arrays it
// writes: nvcc turns a restrict pointer that is only read into read-only-cache loads (ld.global.nc)
// for the whole kernel it is inlined into, where the caller may write the array through another copy
// of the struct; a store through the local rules that out. Accesses are recorded in both forms
// (Edit::restrictForm) and the whole program picks one per parameter.
// (RestrictLocals.cpp declares the locals and records both forms of each access.)
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Lex/Lexer.h>

#include <functional>

namespace relayout::rw {

namespace {

// Library code: builtins and functions of system headers (the CUDA headers, the standard library).
bool library(const clang::SourceManager& sm, const clang::FunctionDecl* function) {
  return function->getBuiltinID() != 0 || function->getLocation().isInvalid() ||
         sm.isInSystemHeader(function->getLocation());
}

// A library call that orders memory between threads, so that one thread may read what another
// wrote: barriers, fences, cooperative-groups and pipeline syncs, atomics with a memory order.
// Warp shuffles and votes exchange registers only; plain atomics (atomicAdd, ...) are relaxed.
bool synchronizes(const clang::FunctionDecl* function) {
  std::string name = llvm::StringRef(function->getQualifiedNameAsString()).lower();
  llvm::StringRef n(name), plain = function->getName();
  for (llvm::StringRef exchange :
       {"__shfl", "__ballot", "__any", "__all", "__uni", "__match", "__reduce", "__activemask"})
    if (plain.starts_with(exchange)) return false;
  for (llvm::StringRef word : {"sync", "fence", "barrier", "wait", "arrive", "pipeline", "memcpy_async"})
    if (n.contains(word)) return true;
  if (n.contains("atomic") && !plain.starts_with("atomic")) return true;  // __atomic_*, cuda::atomic_ref, ...
  for (const clang::ParmVarDecl* parm : function->parameters())
    if (llvm::StringRef(parm->getType().getAsString()).contains("memory_order")) return true;
  return false;
}

// A library function given a field's address that keeps none: what it does through the pointer.
std::optional<FieldUse> libraryUse(const clang::SourceManager& sm, const clang::FunctionDecl* function) {
  if (!library(sm, function)) return std::nullopt;
  llvm::StringRef name = function->getName();
  if (name.starts_with("__ld")) return FieldUse::kRead;  // __ldg, __ldcg, ...
  if (name.starts_with("atomic") || name.starts_with("__st") || name.starts_with("cuda") || name == "memcpy" ||
      name == "memset" || name == "memmove")
    return FieldUse::kWrite;
  return std::nullopt;
}

// Whether a value of a type can reach the arrays of planned struct `s` in the new layout: a pointer
// to it (which the rewrite turns into the device struct), a non-const reference to an element (a
// relayoutRef proxy), or a class holding one (a lambda's captures included). An element itself,
// and anything relayout cannot see into, count as reaching (a dependent or incomplete user type).
class Reach {
 public:
  Reach(const clang::RecordDecl* s, const clang::SourceManager& sm)
      : s_(llvm::cast<clang::RecordDecl>(s->getCanonicalDecl())), sm_(sm) {}
  bool operator()(clang::QualType type) {
    if (type.isNull()) return false;
    type = type.getCanonicalType();
    if (type->isDependentType()) return true;
    if (const auto* ref = type->getAs<clang::ReferenceType>()) {
      clang::QualType pointee = ref->getPointeeType();
      if (isS(pointee)) return !pointee.isConstQualified();
      return (*this)(pointee);
    }
    if (type->isPointerType()) {
      clang::QualType pointee = type->getPointeeType();
      return isS(pointee) || (*this)(pointee);
    }
    if (const clang::ArrayType* array = type->getAsArrayTypeUnsafe()) return (*this)(array->getElementType());
    const clang::RecordDecl* record = type->getAsRecordDecl();
    if (!record || isS(type)) return false;
    record = llvm::cast<clang::RecordDecl>(record->getCanonicalDecl());
    auto [it, added] = known_.try_emplace(record, false);
    if (!added) return it->second;  // known, or being looked at (a cycle adds nothing)
    bool reaches = false;
    const clang::RecordDecl* definition = record->getDefinition();
    if (!definition) {
      reaches = !sm_.isInSystemHeader(record->getLocation());
    } else {
      for (const clang::FieldDecl* field : definition->fields()) reaches = reaches || (*this)(field->getType());
      if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(definition))
        for (const clang::CXXBaseSpecifier& base : cxx->bases()) reaches = reaches || (*this)(base.getType());
    }
    return known_[record] = reaches;
  }
  bool isS(clang::QualType type) const {
    const clang::RecordDecl* record = type->getAsRecordDecl();
    return record && record->getCanonicalDecl() == s_;
  }

 private:
  const clang::RecordDecl* s_;
  const clang::SourceManager& sm_;
  std::map<const clang::RecordDecl*, bool> known_;
};

}  // namespace

FieldUse UseCollector::fieldUse(const clang::Expr* lvalue, int depth) {
  // Up through parentheses; `child` is the topmost node over `node` that `parent` holds.
  auto up = [&](const clang::Stmt* node) {
    const clang::Stmt* parent = climbPast(context_, node, isParen);
    return std::pair{node, parent};
  };
  // The whole object: through members of the field (`p[i].pos.x`) and subscripts of an array field.
  const clang::Stmt* use = lvalue;
  for (;;) {
    auto [child, parent] = up(use);
    if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent);
        member && !member->isArrow() && member->getBase() == child &&
        llvm::isa<clang::FieldDecl>(member->getMemberDecl())) {
      use = member;
      continue;
    }
    // `c ? p[i].x : p[j].x`, `(a, p[i].x)`: the lvalue is the whole expression's.
    if (const auto* choice = llvm::dyn_cast_or_null<clang::AbstractConditionalOperator>(parent);
        choice && choice->getCond() != child && choice->isGLValue()) {
      use = choice;
      continue;
    }
    if (const auto* comma = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent);
        comma && comma->getOpcode() == clang::BO_Comma && comma->getRHS() == child) {
      use = comma;
      continue;
    }
    if (const auto* decay = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(parent);
        decay && decay->getCastKind() == clang::CK_ArrayToPointerDecay) {
      auto [over, user] = up(decay);
      if (const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(user);
          subscript && subscript->getBase() == over) {
        use = subscript;
        continue;
      }
    }
    break;
  }
  auto [child, parent] = up(use);
  if (!parent) return FieldUse::kAddress;  // `float& r = p[i].x;`: a reference declared on it
  if (llvm::isa<clang::CompoundStmt>(parent) || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(parent))
    return FieldUse::kRead;  // a discarded statement, sizeof
  // `{p[i].x, ...}`: the parent map may give the syntactic list; its semantic form converts the value.
  if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(parent)) {
    const clang::InitListExpr* semantic = list->isSemanticForm() ? list : list->getSemanticForm();
    for (const clang::Expr* init : semantic ? semantic->inits() : list->inits()) {
      if (!init) continue;
      const clang::Expr* inner = init->IgnoreParens();
      const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(inner);
      const clang::Expr* value = construct && construct->getNumArgs() == 1 ? construct->getArg(0) : inner;
      if (value->IgnoreParenImpCasts() != use) continue;
      if (construct)
        return construct->getConstructor()->isCopyOrMoveConstructor() && construct->getConstructor()->isTrivial()
                   ? FieldUse::kRead
                   : FieldUse::kAddress;
      const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(inner);
      return cast && cast->getCastKind() == clang::CK_LValueToRValue ? FieldUse::kRead : FieldUse::kAddress;
    }
    return FieldUse::kAddress;
  }
  // Through a pointer's implicit conversions to what takes it.
  auto pointerUser = [&](const clang::Stmt* node) {
    auto [over, user] = up(node);
    while (user && llvm::isa<clang::ImplicitCastExpr>(user)) std::tie(over, user) = up(user);
    return std::pair{over, user};
  };
  // Bound to a function's reference parameter: a library function keeps none it only reads or
  // writes through; a user's function keeps none where the parameter's own uses keep none.
  auto boundTo = [&](const clang::CallExpr* call, const clang::Stmt* arg) -> FieldUse {
    const clang::ParmVarDecl* param = parameterOf(call, arg);
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!param || !callee || !param->getType()->isReferenceType()) return FieldUse::kAddress;
    bool constant = param->getType()->getPointeeType().isConstQualified();
    if (auto use = libraryUse(sm_, callee)) return constant ? FieldUse::kRead : *use;
    if (depth >= 3) return FieldUse::kAddress;
    // `std::min(p[i].x, y)`: a library function reads through a const reference, and may return it.
    if (library(sm_, callee) && constant)
      return callee->getReturnType()->isReferenceType() && fieldUse(call, depth + 1) != FieldUse::kRead
                 ? FieldUse::kAddress
                 : FieldUse::kRead;
    const clang::FunctionDecl* definition = callee->getDefinition();
    if (library(sm_, callee) || !definition || !definition->getBody()) return FieldUse::kAddress;
    const clang::ParmVarDecl* own = definition->getParamDecl(param->getFunctionScopeIndex());
    FieldUse result = FieldUse::kRead;
    for (const clang::DeclRefExpr* ref : referencesTo(definition->getBody(), own)) {
      result = std::max(result, fieldUse(ref, depth + 1));
      if (result == FieldUse::kAddress) break;
    }
    return constant && result == FieldUse::kWrite ? FieldUse::kAddress : result;
  };
  if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent)) {
    if (cast->getCastKind() == clang::CK_LValueToRValue) return FieldUse::kRead;
    if (cast->getCastKind() != clang::CK_NoOp) return FieldUse::kAddress;
    // `const` added: a copy or a const reference.
    auto [over, user] = up(cast);
    if (const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(user))
      return construct->getConstructor()->isCopyOrMoveConstructor() && construct->getConstructor()->isTrivial()
                 ? FieldUse::kRead
                 : FieldUse::kAddress;
    if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(user)) {
      const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
      const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
      if (op && method && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2 && op->getArg(1) == over)
        return method->isTrivial() ? FieldUse::kRead : FieldUse::kAddress;
      return boundTo(call, over) == FieldUse::kAddress ? FieldUse::kAddress : FieldUse::kRead;
    }
    return FieldUse::kAddress;
  }
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent))
    return construct->getConstructor()->isCopyOrMoveConstructor() && construct->getConstructor()->isTrivial()
               ? FieldUse::kRead
               : FieldUse::kAddress;
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent))
    return binary->isAssignmentOp() && binary->getLHS() == child ? FieldUse::kWrite : FieldUse::kAddress;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
    if (unary->isIncrementDecrementOp()) return FieldUse::kWrite;
    if (unary->getOpcode() != clang::UO_AddrOf) return FieldUse::kAddress;
    // `atomicAdd(&p[i].x, v)`, `__ldg(&p[i].x)`, `cudaMemcpy(&d[0].x, ...)`.
    auto [over, user] = pointerUser(unary);
    if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(user); call && call->getDirectCallee())
      if (auto use = libraryUse(sm_, call->getDirectCallee()); use && parameterOf(call, over)) return *use;
    return FieldUse::kAddress;
  }
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(parent)) {
    const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
    if (method && op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2 && op->getArg(0) == child)
      return method->isTrivial() ? FieldUse::kWrite : FieldUse::kAddress;
    if (method) return FieldUse::kAddress;  // a member operator called on it: `this` is its address
    return boundTo(op, child);              // `a += b` with operator+=(float3&, float3)
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(parent); call && call->getCallee() != child)
    return boundTo(call, child);
  return FieldUse::kAddress;
}

void UseCollector::noteFieldAddress(const clang::MemberExpr* member, const EntityInfo* info) {
  if (info) {
    Entity& e = entity(*info);
    if (e.fieldAddress.empty() && fieldUse(member) == FieldUse::kAddress)
      e.fieldAddress = edits_.expansionText(member->getSourceRange());
    return;
  }
  // A field of an element reference, `P& e` (a relayoutRef proxy where e is bound to an array's element).
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  const PlannedStruct* planned = field ? structs_.planned(field->getParent()) : nullptr;
  if (!planned || !planned->layout || member->isArrow()) return;
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(member->getBase()->IgnoreParenImpCasts());
  if (!ref) return;
  clang::QualType type = ref->getDecl()->getType();
  if (!type->isReferenceType() || type->getPointeeType().isConstQualified()) return;
  if (!facts_.fieldAddressStructs.count(planned->plan->name) && fieldUse(member) == FieldUse::kAddress)
    facts_.fieldAddressStructs.insert(planned->plan->name);
}

std::optional<std::string> UseCollector::restrictRefusal(const clang::ParmVarDecl* parm, const EntityInfo& info,
                                                         std::set<std::string>& written) {
  const auto* function = llvm::cast<clang::FunctionDecl>(parm->getDeclContext());
  const DeviceLayout& layout = *info.planned->layout;
  if (parm->getType()->getPointeeType().isVolatileQualified()) return "its elements are volatile";
  Reach reach(info.planned->definition, sm_);
  std::optional<std::string> why;
  bool loads = false, writes = false;
  std::set<const clang::FunctionDecl*> visited{function};

  auto inDeviceBlock = [&](clang::SourceLocation loc) {
    loc = sm_.getExpansionLoc(loc);
    return llvm::any_of(device_.blocks, [&](clang::SourceRange block) {
      return !sm_.isBeforeInTranslationUnit(loc, block.getBegin()) &&
             sm_.isBeforeInTranslationUnit(loc, block.getEnd());
    });
  };
  // Code the host-only parse may see otherwise than nvcc's device pass.
  auto deviceSpecific = [&](const clang::FunctionDecl* f) -> std::optional<std::string> {
    std::string name = "'" + f->getNameAsString() + "'";
    if (inDeviceBlock(f->getLocation())) return name + " is defined under a condition on __CUDA_ARCH__";
    const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(f->getBody());
    auto lbrace = body ? edits_.written(body->getLBracLoc()) : std::nullopt;
    auto rbrace = body ? edits_.written(body->getRBracLoc()) : std::nullopt;
    if (!lbrace || !rbrace || sm_.getFileID(*lbrace) != sm_.getFileID(*rbrace))
      return "the body of " + name + " is not written out in one file";
    llvm::StringRef data = edits_.fileData(*lbrace);
    unsigned end = sm_.getFileOffset(*rbrace);
    clang::Lexer lexer(sm_.getLocForStartOfFile(sm_.getFileID(*lbrace)), context_.getLangOpts(), data.begin(),
                       data.begin() + sm_.getFileOffset(*lbrace), data.end());
    clang::Token token;
    bool directive = false;
    while (!lexer.LexFromRawLexer(token) && sm_.getFileOffset(token.getLocation()) < end) {
      if (token.is(clang::tok::hash) && token.isAtStartOfLine()) {
        directive = true;
        continue;
      }
      if (token.is(clang::tok::raw_identifier)) {
        llvm::StringRef word = token.getRawIdentifier();
        if (directive && word != "pragma") return "the body of " + name + " holds a preprocessor directive";
        if (device_.macros.count(word.str()))
          return "the body of " + name + " uses '" + word.str() + "', a macro defined for the device apart";
      }
      directive = false;
    }
    return std::nullopt;
  };

  // How the body uses the parameter itself (`ref` names it).
  auto paramUse = [&](const clang::DeclRefExpr* ref) {
    if (ref->refersToEnclosingVariableOrCapture()) return void(why = "a lambda captures it");
    const clang::Stmt* child = ref;
    const clang::Stmt* parent = parentOf(child);
    while (parent && (llvm::isa<clang::ParenExpr>(parent) ||
                      (llvm::isa<clang::ImplicitCastExpr>(parent) &&
                       (llvm::cast<clang::ImplicitCastExpr>(parent)->getCastKind() == clang::CK_LValueToRValue ||
                        llvm::cast<clang::ImplicitCastExpr>(parent)->getCastKind() == clang::CK_NoOp))))
      child = parent, parent = parentOf(parent);
    auto fieldAccess = [&](const clang::MemberExpr* member) {
      FieldUse use = fieldUse(member);
      if (use == FieldUse::kAddress)
        return void(why = "'" + edits_.expansionText(member->getSourceRange()) + "' keeps a field's address");
      if (use != FieldUse::kWrite) return;
      writes = true;
      if (const DeviceArray* array = layout.arrayOf(member->getMemberDecl()->getNameAsString()))
        written.insert(array->member);
    };
    // A whole element: only a copy of it (relayoutLoad) reads the arrays past the locals.
    auto element = [&](const clang::Expr* whole) {
      const clang::Stmt* c = whole;
      const clang::Decl* declared = nullptr;
      const clang::Stmt* p = climbPast(context_, c, isElementWrapper, &declared);
      bool load = false;
      if (const auto* construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(p)) {
        load = construct->getNumArgs() == 1 && construct->getConstructor()->isCopyOrMoveConstructor();
      } else if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(p)) {
        const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
        load = (op->getOperator() == clang::OO_Equal && op->getNumArgs() == 2 &&
                op->getArg(1)->IgnoreParenImpCasts() == whole) ||
               (method && op->getNumArgs() >= 1 && op->getArg(0)->IgnoreParens() == c && method->isConst() &&
                !method->isStatic());
      } else if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(p)) {
        const clang::ParmVarDecl* param = parameterOf(call, c);
        load =
            param && param->getType()->isLValueReferenceType() && param->getType()->getPointeeType().isConstQualified();
      } else if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(p)) {
        const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(member->getMemberDecl());
        load = method && method->isConst() && !method->isStatic();
      } else if (const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(declared); !p && var) {
        load = var->getType()->isLValueReferenceType() && var->getType()->getPointeeType().isConstQualified();
      }
      if (!load) return void(why = "a whole element of it is written or referenced");
      loads = true;
    };
    if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(parent);
        member && member->isArrow() && member->getBase() == child) {
      if (llvm::isa<clang::FieldDecl>(member->getMemberDecl())) return fieldAccess(member);
      return void(why = "a member function is called on its element");
    }
    if (const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent);
        subscript && subscript->getBase() == child) {
      const clang::Stmt* over = subscript;
      const clang::Stmt* user = climbPast(context_, over, isParen);
      if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(user);
          member && !member->isArrow() && member->getBase() == over &&
          llvm::isa<clang::FieldDecl>(member->getMemberDecl()))
        return fieldAccess(member);
      return element(subscript);
    }
    if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
        unary && unary->getOpcode() == clang::UO_Deref)
      return element(unary);
    // Null tests read the pointers, not the arrays.
    if (const auto* cast = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(parent);
        cast && cast->getCastKind() == clang::CK_PointerToBoolean)
      return;
    if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent); binary && binary->isEqualityOp()) {
      const clang::Expr* other = binary->getLHS() == child ? binary->getRHS() : binary->getLHS();
      if (other->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull)) return;
    }
    why = "'" +
          edits_.expansionText(
              (parent && llvm::isa<clang::Expr>(parent) ? llvm::cast<clang::Expr>(parent) : ref)->getSourceRange()) +
          "' uses it whole";
  };

  std::function<void(const clang::FunctionDecl*)> follow;
  std::function<void(const clang::Stmt*, const clang::FunctionDecl*)> walk = [&](const clang::Stmt* s,
                                                                                 const clang::FunctionDecl* owner) {
    if (!s || why) return;
    // Unevaluated operands access nothing.
    if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(s) || llvm::isa<clang::CXXNoexceptExpr>(s) ||
        llvm::isa<clang::CXXTypeidExpr>(s))
      return;
    if (llvm::isa<clang::AsmStmt>(s)) return void(why = "'" + owner->getNameAsString() + "' holds inline assembly");
    if (const auto* e = llvm::dyn_cast<clang::Expr>(s)) {
      const auto* named = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
      bool self = named && named->getDecl() == parm && owner == function &&
                  (e == named || llvm::isa<clang::ParenExpr>(e) || llvm::isa<clang::ImplicitCastExpr>(e));
      if (self) {
        if (e == named) paramUse(named);
      } else if (e->getType().isVolatileQualified()) {
        return void(why = "'" + owner->getNameAsString() + "' accesses volatile memory");
      } else if (!(llvm::isa<clang::CXXThisExpr>(e) && reach.isS(e->getType()->getPointeeType())) &&
                 reach(e->getType())) {
        std::string text = edits_.expansionText(e->getSourceRange());
        return void(why = "'" + (text.empty() ? e->getType().getAsString() : text) + "' in '" +
                          owner->getNameAsString() + "' may reach its arrays too");
      }
      // What the expression runs, once its operands are seen.
      for (const clang::Stmt* child : s->children()) walk(child, owner);
      if (why) return;
      if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
        const clang::FunctionDecl* callee = call->getDirectCallee();
        const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(callee);
        if (!callee) return void(why = "'" + owner->getNameAsString() + "' calls through a pointer");
        if (method && method->isVirtual()) return void(why = "'" + owner->getNameAsString() + "' makes a virtual call");
        if (library(sm_, callee)) {
          if (synchronizes(callee))
            return void(why = "'" + owner->getNameAsString() + "' calls '" + callee->getNameAsString() +
                              "', which orders memory between threads");
          for (const clang::Expr* arg : call->arguments()) {
            clang::QualType type = arg->getType().getNonReferenceType();
            const clang::RecordDecl* record = type->getAsRecordDecl();
            if (type->isFunctionPointerType() || type->isFunctionType() ||
                (record && !sm_.isInSystemHeader(record->getLocation())))
              return void(why = "'" + owner->getNameAsString() + "' hands code of its own to '" +
                                callee->getNameAsString() + "'");
          }
        } else {
          follow(callee);
        }
      } else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
        follow(construct->getConstructor());
      } else if (const auto* bind = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) {
        follow(bind->getTemporary()->getDestructor());
      } else if (const auto* arg = llvm::dyn_cast<clang::CXXDefaultArgExpr>(e)) {
        walk(arg->getExpr(), owner);
      } else if (const auto* init = llvm::dyn_cast<clang::CXXDefaultInitExpr>(e)) {
        walk(init->getExpr(), owner);
      } else if (const auto* del = llvm::dyn_cast<clang::CXXDeleteExpr>(e)) {
        follow(del->getOperatorDelete());
        if (const clang::CXXRecordDecl* record = del->getDestroyedType()->getAsCXXRecordDecl())
          follow(record->getDestructor());
      } else if (const auto* alloc = llvm::dyn_cast<clang::CXXNewExpr>(e)) {
        follow(alloc->getOperatorNew());
      }
      return;
    } else if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* d : decls->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(d))
          if (const clang::CXXRecordDecl* record = var->getType()->getAsCXXRecordDecl())
            follow(record->getDestructor());
    }
    for (const clang::Stmt* child : s->children()) walk(child, owner);
  };
  follow = [&](const clang::FunctionDecl* callee) {
    if (!callee || why || library(sm_, callee)) return;
    const clang::FunctionDecl* definition = callee->getDefinition();
    if (!definition && callee->isTrivial()) return;  // nothing to run
    if (!definition || !definition->getBody()) {
      if (callee->isImplicit() && callee->isTrivial()) return;
      return void(why = "it calls '" + callee->getNameAsString() + "', which this unit does not define");
    }
    if (!visited.insert(definition->getCanonicalDecl()).second) return;
    if (!definition->isImplicit())
      if (auto text = deviceSpecific(definition)) return void(why = *text);
    if (const auto* ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(definition))
      for (const clang::CXXCtorInitializer* init : ctor->inits()) walk(init->getInit(), definition);
    walk(definition->getBody(), definition);
  };

  if (auto text = deviceSpecific(function)) return text;
  walk(function->getBody(), function);
  if (!why && loads && writes)
    why = "a whole element is copied where its arrays are written: relayoutLoad reads them past the locals";
  return why;
}

}  // namespace relayout::rw
