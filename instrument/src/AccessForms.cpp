// Which expressions of device code touch struct elements in memory, and how (docs/formats.md):
// an element is an lvalue of a candidate struct type reached through a pointer (p[i], *q, q->f)
// or through a reference bound to one (P& r = p[i]; a reference parameter bound to p[i] at a
// call in this unit). A field access is a site; a whole element copied or assigned is one site per
// field; anything else done with an element is reported with its location.
#include "SiteCollector.h"

#include "RecordInfo.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecordLayout.h>
#include <clang/Basic/SourceManager.h>
#include <fmt/format.h>

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

// The node above e, skipping parentheses and the casts `skip` accepts.
template <class Skip>
clang::DynTypedNode parentOf(clang::ASTContext& context, const clang::Expr*& e, Skip skip) {
  while (true) {
    clang::DynTypedNodeList parents = context.getParents(*e);
    if (parents.empty()) return {};
    const clang::DynTypedNode& p = parents[0];
    if (const auto* paren = p.get<clang::ParenExpr>()) {
      e = paren;
    } else if (const auto* cast = p.get<clang::ImplicitCastExpr>(); cast && skip(cast->getCastKind())) {
      e = cast;
    } else {
      return p;
    }
  }
}

// An index written with a template parameter differs between instantiations of the one text.
bool mentionsTemplateArgument(const clang::Stmt* s) {
  if (!s) return false;
  if (llvm::isa<clang::SubstNonTypeTemplateParmExpr>(s)) return true;
  for (const clang::Stmt* child : s->children())
    if (mentionsTemplateArgument(child)) return true;
  return false;
}

bool isDeviceDefinition(const clang::FunctionDecl* fn) {
  const clang::FunctionDecl* def = fn ? fn->getDefinition() : nullptr;
  return def && (def->hasAttr<clang::CUDAGlobalAttr>() || def->hasAttr<clang::CUDADeviceAttr>());
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
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(e))
    return unary->getOpcode() == clang::UO_Deref ? record : nullptr;
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

// A reference parameter is an element when some call in this unit binds it to one (repeated so
// that references passed on through several helpers are found too).
void SiteCollector::markReferenceParameters() {
  struct Calls : clang::RecursiveASTVisitor<Calls> {
    SiteCollector& self;
    bool grew = false;
    explicit Calls(SiteCollector& s) : self(s) {}
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitCallExpr(clang::CallExpr* call) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return true;
      unsigned first = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee);
      for (unsigned i = first; i < call->getNumArgs() && i - first < callee->getNumParams(); ++i)
        if (callee->getParamDecl(i - first)->getType()->isReferenceType() && self.isElementLvalue(call->getArg(i)))
          grew |= self.elementParams_.insert({callee->getCanonicalDecl(), i - first}).second;
      return true;
    }
  };
  for (int round = 0; round < 8; ++round) {
    Calls calls(*this);
    calls.TraverseDecl(context_.getTranslationUnitDecl());
    if (!calls.grew) break;
  }
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
    // Inside member functions; the call on an element is what gets reported (visitElement).
    if (llvm::isa<clang::CXXThisExpr>(base) || !base->getType()->isPointerType()) return true;
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
  if (const auto* m = up.get<clang::MemberExpr>()) {
    if (llvm::isa<clang::FieldDecl>(m->getMemberDecl())) return true;
    warn(sm_.getExpansionLoc(m->getExprLoc()),
         fmt::format("call of {} on an element of {} is not instrumented: accesses through `this` are not counted",
                     m->getMemberDecl()->getNameAsString(), name),
         m->getSourceRange());
    return true;
  }
  if (const auto* unary = up.get<clang::UnaryOperator>(); unary && unary->getOpcode() == clang::UO_AddrOf) return true;
  if (const auto* var = up.get<clang::VarDecl>(); var && var->getType()->isReferenceType()) return true;
  if (const auto* ctor = up.get<clang::CXXConstructExpr>();
      ctor && ctor->getConstructor()->isCopyOrMoveConstructor() && ctor->getNumArgs() >= 1 && ctor->getArg(0) == current) {
    addWholeSites(e, record, AccessKind::Read);
    return true;
  }
  if (const auto* op = up.get<clang::CXXOperatorCallExpr>(); op && op->getOperator() == clang::OO_Equal) {
    addWholeSites(e, record, op->getArg(0) == current ? AccessKind::Write : AccessKind::Read);
    return true;
  }
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
