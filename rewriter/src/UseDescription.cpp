// Words for a use of an entity that no rewritten form accepted: the warning names what the code
// does with the pointer, so the user sees why the struct kept its layout.
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>

namespace relayout::rw {

namespace {

// The nearest enclosing node that is more than parentheses or an implicit conversion.
const clang::Stmt* meaningfulParent(clang::ASTContext& context, const clang::Stmt*& child, const clang::Decl** decl) {
  return climbPast(context, child, isParenOrImplicitCast, decl);
}

}  // namespace

std::pair<std::string, clang::SourceRange> UseCollector::describeUse(const clang::Expr* ref) {
  const clang::ValueDecl* decl0 = namedDecl(ref);
  std::string name = "'" + decl0->getNameAsString() + "'";
  const std::string& structName = entityOfRef(ref)->planned->plan->name;
  const clang::Stmt* child = ref;
  const clang::Decl* decl = nullptr;
  const clang::Stmt* parent = meaningfulParent(context_, child, &decl);
  auto range = [](const clang::Stmt* s) { return s->getSourceRange(); };
  // Inline assembly (PTX) that is handed the pointer, or an address derived from it, reads memory
  // in the old layout.
  for (const clang::Stmt* node = ref; node;) {
    const clang::Stmt* up = parentStmt(context_, node, nullptr);
    if (const auto* asmStmt = llvm::dyn_cast_or_null<clang::AsmStmt>(up))
      return {name + " is an operand of inline assembly, which reads or writes memory in the original layout",
              range(asmStmt)};
    if (!up || !llvm::isa<clang::Expr>(up)) break;
    node = up;
  }

  if (!parent) {
    if (const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(decl))
      return {name + " is stored in '" + var->getNameAsString() + "'; copies of the pointer are not followed yet",
              var->getSourceRange()};
    return {name + " is used here in a way relayout cannot rewrite yet", ref->getSourceRange()};
  }
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(parent);
      subscript && subscript->getBase()->IgnoreParenImpCasts() == ref) {
    const clang::Stmt* element = subscript;
    const clang::Stmt* outer = meaningfulParent(context_, element, nullptr);
    if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(outer);
        unary && unary->getOpcode() == clang::UO_AddrOf)
      return {"the address of an element of " + name + " is taken; an element has no single address in the " +
                  "new layout", range(unary)};
    if (const auto* member = llvm::dyn_cast_or_null<clang::MemberExpr>(outer))
      return {"the non-const member function '" + member->getMemberDecl()->getNameAsString() + "' is called on an "
              "element of " + name + "; relayout rewrites such a call only as a statement of its own with an index "
              "free of side effects (on a gathered copy, scattered back)",
              range(outer)};
    if (const auto* op = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(outer))
      return {"the non-const operator '" + std::string(clang::getOperatorSpelling(op->getOperator())) + "' is applied "
              "to an element of " + name + "; relayout rewrites const operators only (on a gathered copy)",
              range(outer)};
    return {"a whole element of " + name + " is used other than copied; only field accesses ('" +
                decl0->getNameAsString() + "[i].f'), copies of an element, references to one, const member calls and " +
                "statements '" + decl0->getNameAsString() + "[i] = v;' can be rewritten", range(subscript)};
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
    switch (unary->getOpcode()) {
      case clang::UO_Deref: return {name + " is dereferenced as a whole " + structName, range(unary)};
      case clang::UO_AddrOf: {
        const clang::Stmt* operand = unary;
        const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(meaningfulParent(context_, operand, nullptr));
        if (call && call->getDirectCallee())
          return {"the address of " + name + " is passed to '" + call->getDirectCallee()->getNameAsString() + "'",
                  range(call)};
        return {"the address of " + name + " is taken", range(unary)};
      }
      case clang::UO_LNot: return {name + " is tested against null", range(unary)};
      default: return {name + " is moved by pointer arithmetic", range(unary)};
    }
  }
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
    if (binary->isAdditiveOp() || binary->isCompoundAssignmentOp()) return {"pointer arithmetic on " + name, range(binary)};
    if (binary->isAssignmentOp())
      return {binary->getLHS()->IgnoreParenImpCasts() == ref ? name + " is assigned" : name + " is copied into another variable",
              range(binary)};
    if (binary->isComparisonOp()) return {name + " is compared", range(binary)};
    if (binary->isLogicalOp()) return {name + " is tested against null", range(binary)};
    return {name + " is used in a '" + binary->getOpcodeStr().str() + "' expression", range(binary)};
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(parent)) {
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee) return {name + " is passed through a function pointer or an unresolved call", range(call)};
    std::string calleeName = "'" + callee->getNameAsString() + "'";
    if (sm_.isInSystemHeader(callee->getLocation()))
      return {name + " is passed to " + calleeName + ", which relayout does not handle yet", range(call)};
    if (callee->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate)
      return {name + " is passed to " + calleeName + ", a template (not handled yet)", range(call)};
    if (llvm::isa<clang::CXXMethodDecl>(callee))
      return {name + " is passed to the member function " + calleeName + " (not handled yet)", range(call)};
    return {name + " is passed to " + calleeName + " other than as a " + structName + "* parameter", range(call)};
  }
  if (llvm::isa<clang::CXXConstructExpr>(parent)) return {name + " is passed to a constructor", range(parent)};
  if (llvm::isa<clang::CXXDeleteExpr>(parent))
    return {name + " is freed with delete: memory from new keeps the original layout", range(parent)};
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(parent))
    return {name + " is cast to '" + cast->getType().getAsString(context_.getPrintingPolicy()) +
                "'; the memory it points to changes layout", range(parent)};
  if (llvm::isa<clang::ReturnStmt>(parent)) return {name + " is returned; copies of the pointer are not followed yet", range(parent)};
  if (llvm::isa<clang::ConditionalOperator>(parent)) return {name + " is chosen by a ?: expression", range(parent)};
  if (llvm::isa<clang::InitListExpr>(parent)) return {name + " is stored in an initializer list", range(parent)};
  if (llvm::isa<clang::IfStmt>(parent) || llvm::isa<clang::WhileStmt>(parent) || llvm::isa<clang::ForStmt>(parent))
    return {name + " is tested against null", ref->getSourceRange()};
  if (const auto* trait = llvm::dyn_cast<clang::UnaryExprOrTypeTraitExpr>(parent))
    return {name + " is the operand of " + (trait->getKind() == clang::UETT_SizeOf ? "sizeof" : "a type trait") +
                "; only sizeof(*" + decl0->getNameAsString() + ") can be rewritten",
            range(trait)};
  return {name + " is used here in a way relayout cannot rewrite yet", range(parent)};
}

}  // namespace relayout::rw
