// Which expressions of device code touch struct elements in memory, and how (docs/formats.md):
// an element is an lvalue of a candidate struct type reached through a pointer (p[i], *q, q->f)
// or through a reference bound to one (P& r = p[i]; a reference parameter bound to p[i] at a
// call in this unit), or `*this` in a member function called on an element in this unit. A field
// access is a site (`this->x` and implicit `x` in such a member function too); a whole element
// copied or assigned is one site per field; anything else done with an element is reported with
// its location.
#include "SiteCollector.h"
#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"

#include "RecordInfo.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecordLayout.h>
#include <clang/Basic/SourceManager.h>
#include <fmt/format.h>

#include <set>

namespace relayout {

namespace {

// Parentheses and const-adding casts do not change which object an expression names.
const clang::Expr* strip(const clang::Expr* e) {
  while (true) {
    e = e->IgnoreParens();
    const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
    if (!cast || cast->getCastKind() != clang::CK_NoOp) return e;
    e = cast->getSubExpr();
  }
}

// The node above e, skipping parentheses and the implicit casts `skip` accepts (clangsupport's
// climb): a statement, or the declaration e initializes; e moves up to that node's child.
template <class Skip>
clang::DynTypedNode parentOf(clang::ASTContext& context, const clang::Expr*& e, Skip skip) {
  const clang::Stmt* node = e;
  const clang::Decl* decl = nullptr;
  const clang::Stmt* parent = climbPast(
      context, node,
      [&](const clang::Stmt* s) {
        const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s);
        return isParen(s) || (cast && skip(cast->getCastKind()));
      },
      &decl);
  e = llvm::cast<clang::Expr>(node);
  if (parent) return clang::DynTypedNode::create(*parent);
  if (decl) return clang::DynTypedNode::create(*decl);
  return {};
}

// An index written with a template parameter differs between instantiations of the one text.
bool mentionsTemplateArgument(const clang::Stmt* s) {
  if (!s) return false;
  if (llvm::isa<clang::SubstNonTypeTemplateParmExpr>(s)) return true;
  for (const clang::Stmt* child : s->children())
    if (mentionsTemplateArgument(child)) return true;
  return false;
}

// The fields a function reads of an element it copied into a local (`const Facet f = rest[i];`,
// then only `f.a`, `f.b`, `f.c`): nvcc drops the loads of the others, which the compiled code never
// issues, so their sites are `unread`. None (every field) where the local is used otherwise: copied
// or passed whole, its address taken, a member function called on it.
std::optional<std::set<std::string>> fieldsReadOfLocalCopy(clang::ASTContext& context,
                                                           const clang::CXXConstructExpr* copy,
                                                           const clang::FunctionDecl* function) {
  const clang::Stmt* node = copy;
  const clang::Decl* decl = nullptr;
  climbPast(
      context, node, [](const clang::Stmt* s) { return isParen(s) || llvm::isa<clang::ExprWithCleanups>(s); }, &decl);
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(decl);
  if (!var || llvm::isa<clang::ParmVarDecl>(var) || !var->hasLocalStorage() || var->getType()->isReferenceType() ||
      var->getType().isVolatileQualified() || !function || !function->getBody())
    return std::nullopt;
  std::set<std::string> read;
  for (const clang::DeclRefExpr* ref : referencesTo(function->getBody(), var)) {
    const clang::Stmt* use = ref;
    const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(climbPast(context, use, isParenOrNoOpCast));
    if (!member || member->isArrow() || !llvm::isa<clang::FieldDecl>(member->getMemberDecl())) return std::nullopt;
    read.insert(member->getMemberDecl()->getNameAsString());
  }
  return read;
}

bool isDeviceDefinition(const clang::FunctionDecl* fn) {
  const clang::FunctionDecl* def = fn ? fn->getDefinition() : nullptr;
  return def && (def->hasAttr<clang::CUDAGlobalAttr>() || def->hasAttr<clang::CUDADeviceAttr>());
}

// A member function the compiler writes (implicit or defaulted: a copy, an assignment) has no
// text to hook; its uses of an element are counted where it is called, as whole-element uses.
bool compilerWritten(const clang::FunctionDecl* fn) { return fn && (fn->isImplicit() || fn->isDefaulted()); }

// The object a member function is called on: `o` in o.m(), p->m(), o += v (a member operator).
const clang::Expr* calledObject(const clang::CallExpr* call) {
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) return member->getImplicitObjectArgument();
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call))
    if (llvm::isa_and_nonnull<clang::CXXMethodDecl>(op->getDirectCallee()) && op->getNumArgs() > 0)
      return op->getArg(0);
  return nullptr;
}

// The class of that object (of its pointee for p->m()).
const clang::RecordDecl* calledRecord(const clang::Expr* object) {
  clang::QualType type = object->getType();
  return type->isPointerType() ? type->getPointeeType()->getAsRecordDecl() : type->getAsRecordDecl();
}

}  // namespace

const clang::RecordDecl* SiteCollector::elementRecord(const clang::Expr* e) const {
  e = strip(e);
  const clang::RecordDecl* record = e->getType()->getAsRecordDecl();
  if (!e->isGLValue() || !isLayoutCandidate(record, sm_)) return nullptr;
  // Only elements reached through a pointer: arrays declared in device code (__shared__ tiles,
  // per-thread locals) are not the global-memory layout relayout changes, and taking their fields'
  // addresses would push locals out of registers.
  if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
    return sub->getBase()->IgnoreParenImpCasts()->getType()->isPointerType() ? record : nullptr;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (unary->getOpcode() != clang::UO_Deref) return nullptr;
    // *this is an element only where the member function is called on one.
    return !llvm::isa<clang::CXXThisExpr>(unary->getSubExpr()->IgnoreParenImpCasts()) || thisIsElement() ? record
                                                                                                         : nullptr;
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (const auto* parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl())) {
      const auto* fn = llvm::dyn_cast<clang::FunctionDecl>(parm->getDeclContext());
      bool bound = parm->getType()->isReferenceType() && fn &&
                   elementParams_.count({fn->getCanonicalDecl(), parm->getFunctionScopeIndex()});
      return bound ? record : nullptr;
    }
    if (const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()))
      if (var->getType()->isReferenceType() && var->getInit() && elementRecord(var->getInit())) return record;
  }
  return nullptr;
}

bool SiteCollector::thisIsElement() const { return function_ && elementMethods_.count(function_); }

// The member function a call runs on an element (p[i].m(), q->m() for a pointer q to a candidate
// struct, p[i] += v, this->m() inside a member function called on an element), whatever its
// definition; null for other calls and for member functions the compiler writes.
const clang::CXXMethodDecl* SiteCollector::methodOnElement(const clang::CallExpr* call) const {
  const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
  const clang::Expr* object = calledObject(call);
  if (!method || !object || method->isStatic() || compilerWritten(method)) return nullptr;
  object = object->IgnoreParenImpCasts();
  if (!object->getType()->isPointerType()) return isElementLvalue(object) ? method : nullptr;
  if (llvm::isa<clang::CXXThisExpr>(object)) return thisIsElement() ? method : nullptr;
  return isLayoutCandidate(object->getType()->getPointeeType()->getAsRecordDecl(), sm_) ? method : nullptr;
}

// A reference parameter is an element when some call in this unit binds it to one, and a member
// function's `this` when some call in this unit runs it on one (repeated so that elements passed
// on through several helpers and member functions are found too).
void SiteCollector::markElementParameters() {
  struct Calls : clang::RecursiveASTVisitor<Calls> {
    SiteCollector& self;
    bool grew = false;
    bool inDevice = false;  // host code's calls on host arrays hook nothing
    explicit Calls(SiteCollector& s) : self(s) {}
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool TraverseDecl(clang::Decl* decl) {
      auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl);
      if (!fn || !fn->doesThisDeclarationHaveABody()) return clang::RecursiveASTVisitor<Calls>::TraverseDecl(decl);
      const clang::FunctionDecl* outer = self.function_;
      const bool outerDevice = inDevice;
      self.function_ = fn->getCanonicalDecl();  // whose `this` a call on this->m() passes on
      inDevice = fn->hasAttr<clang::CUDAGlobalAttr>() || fn->hasAttr<clang::CUDADeviceAttr>();
      bool result = clang::RecursiveASTVisitor<Calls>::TraverseDecl(decl);
      self.function_ = outer;
      inDevice = outerDevice;
      return result;
    }
    bool VisitCallExpr(clang::CallExpr* call) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return true;
      unsigned first = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee);
      for (unsigned i = first; i < call->getNumArgs() && i - first < callee->getNumParams(); ++i)
        if (callee->getParamDecl(i - first)->getType()->isReferenceType() && self.isElementLvalue(call->getArg(i)))
          grew |= self.elementParams_.insert({callee->getCanonicalDecl(), i - first}).second;
      // Hooked on `this` only as a member of the element's own class: a base class's `this` points
      // inside the element, at fields that are not counted (inherited).
      const clang::CXXMethodDecl* method = inDevice ? self.methodOnElement(call) : nullptr;
      const clang::RecordDecl* record = method ? calledRecord(calledObject(call)->IgnoreParenImpCasts()) : nullptr;
      if (record && method->getParent()->getCanonicalDecl() == record->getCanonicalDecl())
        grew |= self.elementMethods_.insert(method->getCanonicalDecl()).second;
      return true;
    }
  };
  for (int round = 0; round < 8; ++round) {
    Calls calls(*this);
    calls.TraverseDecl(context_.getTranslationUnitDecl());
    if (!calls.grew) break;
  }
}

// A member function called on an element counts its accesses through `this` in its own body when
// that body is device code of the project's files; otherwise the call is reported.
void SiteCollector::checkCallOnElement(const clang::CallExpr* call) {
  const clang::CXXMethodDecl* method = methodOnElement(call);
  if (!method) return checkCallOnMember(call);
  const clang::RecordDecl* record = calledRecord(calledObject(call)->IgnoreParenImpCasts());
  if (!record) return;
  std::string what =
      fmt::format("call of {} on an element of {}", method->getNameAsString(), recordName(record->getDefinition()));
  clang::SourceLocation loc = sm_.getExpansionLoc(call->getExprLoc());
  if (method->getParent()->getCanonicalDecl() != record->getCanonicalDecl()) {
    warn(loc,
         what + " is not instrumented: it is inherited from " + recordName(method->getParent()) +
             " (fields of base classes are not counted)",
         call->getSourceRange());
  } else if (!isDeviceDefinition(method) || !inProjectFile(method->getDefinition()->getLocation())) {
    warn(loc, what + " is not instrumented: its definition is not device code of the project's files in this unit",
         call->getSourceRange());
  } else if (method->isVirtual() && !method->hasAttr<clang::FinalAttr>() && !record->hasAttr<clang::FinalAttr>()) {
    warn(loc,
         what + " counts the accesses of " + method->getQualifiedNameAsString() +
             " only: those of an override called instead are not counted",
         call->getSourceRange());
  }
}

// p[i].pos.len(): a member function hooked on `this` (because it is called on elements of its own
// class elsewhere) run on a field of an element counts that field's accesses as those of elements
// of the field's class; say so, since the field itself is counted as read at the call.
void SiteCollector::checkCallOnMember(const clang::CallExpr* call) {
  const auto* method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
  const clang::Expr* object = calledObject(call);
  if (!method || !object || !elementMethods_.count(method->getCanonicalDecl())) return;
  const clang::Expr* e = object->IgnoreParenImpCasts();
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(e);
  if (!member || !llvm::isa<clang::FieldDecl>(member->getMemberDecl())) return;
  while (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) {
    if (m->isArrow() || !llvm::isa<clang::FieldDecl>(m->getMemberDecl())) break;
    e = m->getBase()->IgnoreParenImpCasts();
  }
  const clang::RecordDecl* outer = nullptr;
  if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e); m && m->isArrow()) {
    const clang::Expr* base = m->getBase()->IgnoreParenImpCasts();
    if (!llvm::isa<clang::CXXThisExpr>(base) || thisIsElement())
      if (const clang::RecordDecl* r = base->getType()->getPointeeType()->getAsRecordDecl(); isLayoutCandidate(r, sm_))
        outer = r;
  } else {
    outer = elementRecord(e);
  }
  if (!outer) return;
  warn(sm_.getExpansionLoc(call->getExprLoc()),
       fmt::format("call of {} on field {} of an element of {} counts its accesses through `this` as accesses to "
                   "elements of {}, on which it is called elsewhere",
                   method->getNameAsString(), member->getMemberDecl()->getNameAsString(),
                   recordName(outer->getDefinition()), recordName(method->getParent())),
       call->getSourceRange());
}

// From a field access, up through nested members and array members: p[i].pos.x touches field
// pos at the offset and size of x; p[i].a[3] touches a's fourth element ("a[]" for an index not
// known at compile time, at a's own offset).
const clang::Expr* SiteCollector::extendMemberChain(const clang::MemberExpr* root, Touched& touched) const {
  const clang::Expr* current = root;
  auto sizeOf = [&](clang::QualType t) { return unsigned(context_.getTypeSizeInChars(t).getQuantity()); };
  while (true) {
    const clang::Expr* probe = current;
    clang::DynTypedNode up = parentOf(context_, probe, [](clang::CastKind k) {
      return k == clang::CK_ArrayToPointerDecay || k == clang::CK_NoOp;
    });
    if (const auto* m = up.get<clang::MemberExpr>(); m && !m->isArrow()) {
      const auto* f = llvm::dyn_cast<clang::FieldDecl>(m->getMemberDecl());
      if (!f || f->isBitField()) break;
      const clang::ASTRecordLayout& layout = context_.getASTRecordLayout(f->getParent());
      touched.offset += unsigned(context_.toCharUnitsFromBits(layout.getFieldOffset(f->getFieldIndex())).getQuantity());
      touched.size = sizeOf(f->getType());
      touched.member += "." + f->getNameAsString();
      current = m;
    } else if (const auto* s = up.get<clang::ArraySubscriptExpr>();
               s && current->getType()->isConstantArrayType() && s->getBase()->IgnoreParenImpCasts() == current) {
      touched.size = sizeOf(s->getType());
      clang::Expr::EvalResult index;
      if (!mentionsTemplateArgument(s->getIdx()) && s->getIdx()->EvaluateAsInt(index, context_)) {
        int64_t k = index.Val.getInt().getExtValue();
        touched.offset += unsigned(k * touched.size);
        touched.member += fmt::format("[{}]", k);
      } else {
        touched.member += "[]";
      }
      current = s;
    } else {
      break;
    }
  }
  return current;
}

// Reads are the default; a site is written when it is the left side of an assignment (through
// parentheses, array members and nested members), read and written for compound assignments,
// increments and when its address is taken (atomics take addresses).
AccessKind SiteCollector::accessKindOf(const clang::Expr* access) const {
  const clang::Expr* current = access;
  while (true) {
    clang::DynTypedNode parent = parentOf(context_, current, [](clang::CastKind k) {
      return k != clang::CK_LValueToRValue;
    });
    if (parent.get<clang::ImplicitCastExpr>()) {
      return AccessKind::Read;  // lvalue-to-rvalue: a load
    } else if (const auto* sub = parent.get<clang::ArraySubscriptExpr>()) {
      if (sub->getBase()->IgnoreParenImpCasts() != current->IgnoreParenImpCasts()) return AccessKind::Read;
      current = sub;
    } else if (const auto* member = parent.get<clang::MemberExpr>()) {
      if (member->isArrow()) return AccessKind::Read;
      current = member;
    } else if (const auto* binary = parent.get<clang::BinaryOperator>()) {
      if (!binary->isAssignmentOp() || binary->getLHS()->IgnoreParenImpCasts() != current->IgnoreParenImpCasts())
        return AccessKind::Read;
      return binary->isCompoundAssignmentOp() ? AccessKind::ReadWrite : AccessKind::Write;
    } else if (const auto* op = parent.get<clang::CXXOperatorCallExpr>()) {
      // Assignment of a struct-typed field (or element): the implicit operator=.
      if (!op->isAssignmentOp() || op->getArg(0)->IgnoreParenImpCasts() != current->IgnoreParenImpCasts())
        return AccessKind::Read;
      return op->getOperator() == clang::OO_Equal ? AccessKind::Write : AccessKind::ReadWrite;
    } else if (const auto* unary = parent.get<clang::UnaryOperator>()) {
      if (unary->isIncrementDecrementOp() || unary->getOpcode() == clang::UO_AddrOf) return AccessKind::ReadWrite;
      return AccessKind::Read;
    } else {
      return AccessKind::Read;
    }
  }
}

bool SiteCollector::VisitMemberExpr(clang::MemberExpr* member) {
  if (!function_) return true;
  auto* field = llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl());
  if (!field) return true;
  const clang::RecordDecl* record = nullptr;
  if (member->isArrow()) {
    const clang::Expr* base = member->getBase()->IgnoreParenImpCasts();
    // `this->x` or `x` in a member function: a site where some call runs it on an element.
    if (llvm::isa<clang::CXXThisExpr>(base) && !thisIsElement()) return true;
    if (!base->getType()->isPointerType()) return true;
    record = base->getType()->getPointeeType()->getAsRecordDecl();
    if (!isLayoutCandidate(record, sm_)) return true;
  } else {
    record = elementRecord(member->getBase());
    if (!record) return true;
  }
  record = record->getDefinition();
  std::string what = fmt::format("access to {}.{}", recordName(record), field->getName().str());
  if (field->getParent()->getDefinition() != record) {
    warn(member->getExprLoc(), what + " is not instrumented: the field is inherited", member->getSourceRange());
    return true;
  }
  if (field->isBitField()) {
    warn(member->getExprLoc(), what + " is not instrumented: bit-fields have no address", member->getSourceRange());
    return true;
  }
  if (auto odd = nonAsciiField(record)) {
    warn(member->getExprLoc(),
         what + " is not instrumented: " + recordName(record) + "'s field '" + *odd +
             "' is not an ASCII identifier, and relayout's site maps and plans name fields so",
         member->getSourceRange());
    return true;
  }
  const FieldInfo* info = nullptr;
  auto [it, inserted] = structs_.try_emplace(recordName(record));
  if (inserted) it->second = describeRecord(record, context_);
  info = it->second.field(field->getNameAsString());
  Touched touched{field, info->name, info->offset, info->size};
  const clang::Expr* access = extendMemberChain(member, touched);
  addFieldSite(access, record, touched);
  return true;
}

// An element used whole: copied (P q = p[i], by-value arguments, return) or assigned (p[j] = q)
// moves every field, so it is one site per field. Its address, a reference bound to it, a field
// of it and a reference parameter bound to it at a call (counted inside the callee) are not uses
// of the whole; anything else is reported.
bool SiteCollector::visitElement(clang::Expr* e) {
  if (!function_) return true;
  const clang::RecordDecl* record = elementRecord(e);
  if (!record) return true;
  record = record->getDefinition();
  const clang::Expr* current = e;
  clang::DynTypedNode up = parentOf(context_, current, [](clang::CastKind k) { return k == clang::CK_NoOp; });
  std::string name = recordName(record);
  // A field of it is a site; a member function called on it counts in its body (checkCallOnElement).
  if (up.get<clang::MemberExpr>()) return true;
  if (const auto* cast = up.get<clang::ImplicitCastExpr>();
      cast && (cast->getCastKind() == clang::CK_UncheckedDerivedToBase || cast->getCastKind() == clang::CK_DerivedToBase)) {
    const clang::Expr* base = cast;
    clang::DynTypedNode above = parentOf(context_, base, [](clang::CastKind k) { return k == clang::CK_NoOp; });
    const auto* m = above.get<clang::MemberExpr>();
    if (m && llvm::isa<clang::CXXMethodDecl>(m->getMemberDecl())) return true;  // reported by checkCallOnElement
  }
  if (const auto* unary = up.get<clang::UnaryOperator>(); unary && unary->getOpcode() == clang::UO_AddrOf) return true;
  if (const auto* var = up.get<clang::VarDecl>(); var && var->getType()->isReferenceType()) return true;
  // Returned by reference (`return *this;` from an operator): bound, not used.
  if (up.get<clang::ReturnStmt>() && function_->getReturnType()->isReferenceType()) return true;
  if (const auto* ctor = up.get<clang::CXXConstructExpr>();
      ctor && ctor->getConstructor()->isCopyOrMoveConstructor() && ctor->getNumArgs() >= 1 && ctor->getArg(0) == current) {
    const auto read = fieldsReadOfLocalCopy(context_, ctor, function_);
    addWholeSites(e, record, AccessKind::Read, read ? &*read : nullptr);
    return true;
  }
  if (const auto* op = up.get<clang::CXXOperatorCallExpr>();
      op && op->getOperator() == clang::OO_Equal && compilerWritten(op->getDirectCallee())) {
    addWholeSites(e, record, op->getArg(0) == current ? AccessKind::Write : AccessKind::Read);
    return true;
  }
  if (const auto* call = up.get<clang::CallExpr>(); call && calledObject(call) == current) return true;
  if (const auto* call = up.get<clang::CallExpr>()) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (callee && isDeviceDefinition(callee) && inProjectFile(callee->getDefinition()->getLocation()))
      return true;  // a reference parameter: its uses are sites of the callee
    warn(sm_.getExpansionLoc(e->getExprLoc()),
         fmt::format("element of {} passed by reference to {} is not instrumented: that function is not device code "
                     "of the project's files",
                     name, callee ? callee->getQualifiedNameAsString() : std::string("an indirect call")),
         e->getSourceRange());
    return true;
  }
  warn(sm_.getExpansionLoc(e->getExprLoc()),
       fmt::format("whole-element use of {} is not instrumented: this form is not supported", name),
       e->getSourceRange());
  return true;
}

}  // namespace relayout
