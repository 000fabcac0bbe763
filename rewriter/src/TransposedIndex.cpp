// The index of a field access to a transposed layout (StructPlan::transpose): element row * W + k
// is stored at k * rows + row. Where the index is written `row * W + k` with k provably below W
// (clangsupport's RowMajorIndex), the access computes that place itself, `(size_t)(k) * p.rows +
// (row)`, which is as cheap as the original index; a local holding such an index, used only to
// index the fields of that one array, gets the place as its initializer instead. Any other index
// goes through relayoutTransposed(p, i), which divides by W: correct for every index, only slower.
#include "UseCollector.h"

#include "relayout/clangsupport/AstClimb.h"
#include "relayout/clangsupport/References.h"
#include "relayout/clangsupport/RowMajorIndex.h"

namespace relayout::rw {

namespace {

// `(size_t)(k) * p.rows + (row)`: where `base`, whose arrays hold `rows` rows, stores entry (row, k).
std::string placeText(const std::string& base, const std::string& rowsMember, const std::string& row,
                      const std::string& column) {
  return "(size_t)(" + column + ") * " + base + "." + rowsMember + " + (" + row + ")";
}

// `index` as `row * W + k` for this W (RowMajorIndex), the index, its row and its k written out in
// the file, so that their text can take another place.
std::optional<RowMajorIndex> writtenRowMajor(clang::ASTContext& context, const SourceEdits& edits,
                                             const clang::Expr* index, uint64_t width) {
  auto form = rowMajorIndex(context, index);
  if (!form || form->width != width || !edits.writtenRange(index->getSourceRange()) ||
      !edits.writtenRange(form->row->getSourceRange()) || !edits.writtenRange(form->column->getSourceRange()))
    return std::nullopt;
  return form;
}

// Integer arithmetic on variables and constants only: no access that another rewrite could edit
// inside the index, which a by-row index replaces whole.
bool plainArithmetic(const clang::Stmt* stmt) {
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(stmt)) return ref->getType()->isIntegerType();
  if (!llvm::isa<clang::IntegerLiteral, clang::BinaryOperator, clang::UnaryOperator, clang::CastExpr, clang::ParenExpr>(
          stmt))
    return false;
  for (const clang::Stmt* child : stmt->children())
    if (!child || !plainArithmetic(child)) return false;
  return true;
}

}  // namespace

bool UseCollector::indexesOnlyFieldsOf(const clang::VarDecl* local, const clang::ValueDecl* array) {
  const auto* function = llvm::dyn_cast_or_null<clang::FunctionDecl>(local->getParentFunctionOrMethod());
  if (!function || !function->getBody()) return false;
  for (const clang::DeclRefExpr* use : referencesTo(function->getBody(), local)) {
    const clang::Stmt* node = use;
    const clang::Stmt* parent = climbPast(context_, node, isParenOrImplicitCast);
    const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent);
    const clang::Stmt* base = subscript ? subscript->getBase()->IgnoreParenImpCasts() : nullptr;
    const auto* baseRef = llvm::dyn_cast_or_null<clang::DeclRefExpr>(base);
    const clang::Stmt* element = subscript;
    const auto* member =
        subscript ? llvm::dyn_cast_or_null<clang::MemberExpr>(climbPast(context_, element, isParen)) : nullptr;
    if (!subscript || subscript->getIdx()->IgnoreParenImpCasts() != use || !baseRef || baseRef->getDecl() != array ||
        !member || !llvm::isa<clang::FieldDecl>(member->getMemberDecl()))
      return false;
  }
  return true;
}

bool UseCollector::transposedIndex(const clang::ArraySubscriptExpr* subscript, const clang::Expr* ref,
                                   const DeviceLayout& layout, std::vector<Edit>& out) {
  const clang::Expr* index = subscript->getIdx();
  const std::string base = edits_.text(ref->getSourceRange());
  const uint64_t width = layout.transposeWidth;
  auto place = [&](const RowMajorIndex& form) {
    return placeText(base, layout.rowsMember, edits_.text(form.row->getSourceRange()),
                     edits_.text(form.column->getSourceRange()));
  };
  if (auto form = writtenRowMajor(context_, edits_, index, width))
    return edits_.replaceTokens(index->getSourceRange(), place(*form), out);
  // `const size_t e = (size_t)i * kEll + k; ... p[e].value ... p[e].col`: the local's initializer.
  const auto* use = llvm::dyn_cast<clang::DeclRefExpr>(index->IgnoreParenImpCasts());
  const auto* local = use ? llvm::dyn_cast<clang::VarDecl>(use->getDecl()) : nullptr;
  const auto* array = llvm::dyn_cast<clang::DeclRefExpr>(ref);
  if (local && array && local->isLocalVarDecl() && local->getInit())
    if (auto form = writtenRowMajor(context_, edits_, local->getInit(), width);
        form && indexesOnlyFieldsOf(local, array->getDecl()))
      return edits_.replaceTokens(local->getInit()->getSourceRange(), place(*form), out);
  return edits_.insertBefore(index->getBeginLoc(), "relayoutTransposed(" + base + ", ", out) &&
         edits_.insertAfter(index->getEndLoc(), ")", out);
}

bool UseCollector::indexByRow(const clang::Expr* index, const EntityInfo& info, std::vector<Edit>& out) {
  const uint64_t width = info.planned->layout->transposeWidth;
  if (!index || !width) return false;
  auto form = writtenRowMajor(context_, edits_, index, width);
  if (!form || !plainArithmetic(index)) return false;
  const std::string byRow =
      edits_.text(form->row->getSourceRange()) + ", " + edits_.text(form->column->getSourceRange());
  return edits_.replaceTokens(index->getSourceRange(), byRow, out);
}

}  // namespace relayout::rw
