// Array fields split by index. In the SoA layout an array field `int neighbor[4]` is stored
// variable-major, one run of `stride` values per index, so that `p[i].neighbor[j]` becomes
// `p.neighbor[j * p.stride + i]` and a warp reading index j of 32 consecutive elements reads 32
// consecutive values (kept per element, `p.neighbor[i][j]`, it would stride 16 bytes). The form
// belongs to the struct, so it is chosen once every unit is read: each access records both forms
// (FieldForm), and a use that takes the field or a partial subscript as a whole (`p[i].normal[j]`
// as a float*, `&p[i].neighbor[0]`, sizeof, memcpy) keeps that field per element
// (Entity::keptWhole) while the others are still split. A clustered layout's one-field cluster is
// a plain array, the SoA form of that field, so it is split the same way; fields inside a
// multi-field cluster stay in its aligned struct.
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/Path.h>

#include <functional>

namespace relayout::rw {

namespace {

// Whether an expression means the same when written twice: `p`, `h.p`, `this->p`.
bool repeatable(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (llvm::isa<clang::DeclRefExpr>(e) || llvm::isa<clang::CXXThisExpr>(e)) return true;
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(e)) return repeatable(member->getBase());
  return false;
}

// Whether an expression binds at least as tightly as a unary operator, so that it needs no
// parentheses as an operand of `*` or `+`.
bool tight(const clang::Expr* e) {
  e = e->IgnoreImpCasts();
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e))
    return op->getOperator() == clang::OO_Call || op->getOperator() == clang::OO_Subscript ||
           op->getOperator() == clang::OO_Arrow;
  return llvm::isa<clang::ParenExpr, clang::DeclRefExpr, clang::IntegerLiteral, clang::CharacterLiteral,
                   clang::FloatingLiteral, clang::CXXBoolLiteralExpr, clang::ArraySubscriptExpr, clang::MemberExpr,
                   clang::CallExpr, clang::UnaryOperator, clang::UnaryExprOrTypeTraitExpr, clang::CastExpr,
                   clang::PseudoObjectExpr>(e);  // PseudoObjectExpr: threadIdx.x and the like
}

// Finds what relayout also edits inside an expression: a use of an entity, or (in a template's
// clone) a spelled template parameter.
class EditFinder : public clang::RecursiveASTVisitor<EditFinder> {
 public:
  EditFinder(std::function<bool(const clang::ValueDecl*)> isEntity, bool cloning)
      : isEntity_(std::move(isEntity)), cloning_(cloning) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) { return !(found |= isEntity_(ref->getDecl())); }
  bool VisitMemberExpr(clang::MemberExpr* member) { return !(found |= isEntity_(member->getMemberDecl())); }
  bool VisitSubstTemplateTypeParmTypeLoc(clang::SubstTemplateTypeParmTypeLoc) { return !(found |= cloning_); }
  bool found = false;

 private:
  std::function<bool(const clang::ValueDecl*)> isEntity_;
  bool cloning_;
};

}  // namespace

bool UseCollector::splittable(const clang::FieldDecl* field, const EntityInfo& info) const {
  const DeviceArray* array = info.planned->layout->arrayOf(field->getNameAsString());
  return array && array->splittable;
}

bool UseCollector::editedInside(const clang::Expr* expr) {
  EditFinder finder([this](const clang::ValueDecl* decl) { return entityOf(decl) != nullptr; }, cloning_ != nullptr);
  finder.TraverseStmt(const_cast<clang::Expr*>(expr));
  return finder.found;
}

std::optional<Subscript> UseCollector::subscriptText(const clang::Expr* index) {
  const auto* literal = llvm::dyn_cast<clang::IntegerLiteral>(index->IgnoreParenImpCasts());
  if (literal && edits_.written(literal->getLocation())) return Subscript{"", literal->getValue().getZExtValue()};
  std::string text = edits_.expansionText(index->getSourceRange());
  if (text.empty()) return std::nullopt;
  return Subscript{tight(index) ? text : "(" + text + ")", std::nullopt};
}

void UseCollector::recordArrayAccess(const clang::MemberExpr* member, const clang::ArraySubscriptExpr* element,
                                     const clang::Expr* ref, const EntityInfo& info,
                                     const std::optional<std::string>& local, std::vector<Edit> kept) {
  std::string field = member->getMemberDecl()->getNameAsString();
  std::vector<Edit> split;
  auto why = splitEdits(member, element, ref, info, local, split);
  Entity& e = entity(info);
  if (!why) {
    e.forms.push_back({field, std::move(split), std::move(kept)});
    return;
  }
  // Wherever this entity changes layout, the field stays per element: these edits always hold.
  e.edits.insert(e.edits.end(), kept.begin(), kept.end());
  keepWhole(info, field, why->first, why->second);
}

void UseCollector::keepWhole(const EntityInfo& info, const std::string& field, const std::string& what,
                             const clang::Expr* at) {
  Entity& e = entity(info);
  if (e.keptWhole.count(field)) return;
  std::string text = edits_.expansionText(at->getSourceRange());
  text.erase(std::unique(text.begin(), text.end(), [](char a, char b) { return a == ' ' && b == ' '; }), text.end());
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  clang::PresumedLoc place = sm_.getPresumedLoc(sm_.getFileLoc(at->getBeginLoc()));
  std::string where = place.isValid() ? llvm::sys::path::filename(place.getFilename()).str() + ":" +
                                            std::to_string(place.getLine())
                                      : "?";
  e.keptWhole[field] = KeptField{
      "'" + text + "' (" + where + ") " + what,
      diags_.note(at->getBeginLoc(), "'" + field + "' of '" + info.planned->plan->name + "' stays an array per "
                  "element in the " + (info.planned->layout->layout == Layout::SoA ? "SoA" : "clustered") +
                  " layout, not split by index: this use " + what, at->getSourceRange())};
}

std::optional<std::pair<std::string, const clang::Expr*>> UseCollector::splitEdits(
    const clang::MemberExpr* member, const clang::ArraySubscriptExpr* element, const clang::Expr* ref,
    const EntityInfo& info, const std::optional<std::string>& local, std::vector<Edit>& out) {
  const auto* field = llvm::cast<clang::FieldDecl>(member->getMemberDecl());
  std::vector<uint64_t> dims;
  for (clang::QualType t = field->getType(); const auto* array = context_.getAsConstantArrayType(t);
       t = array->getElementType())
    dims.push_back(array->getSize().getZExtValue());
  // The subscripts applied to the field, outermost dimension first, through parentheses and decays.
  std::vector<const clang::ArraySubscriptExpr*> subscripts;
  const clang::Expr* use = member;  // the whole access
  auto up = [&](const clang::Stmt* child) {
    const clang::Stmt* parent = climbPast(context_, child, [](const clang::Stmt* s) {
      const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s);
      return isParen(s) || (cast && cast->getCastKind() == clang::CK_ArrayToPointerDecay);
    });
    return std::pair{child, parent};
  };
  while (subscripts.size() < dims.size()) {
    auto [child, parent] = up(use);
    const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent);
    if (!subscript || subscript->getLHS() != child) break;
    subscripts.push_back(subscript);
    use = subscript;
  }
  using Why = std::pair<std::string, const clang::Expr*>;
  if (subscripts.size() < dims.size()) return Why{"takes it as an array", use};
  if (const auto* address = llvm::dyn_cast_or_null<clang::UnaryOperator>(up(use).second);
      address && address->getOpcode() == clang::UO_AddrOf)
    return Why{"takes the address of one of its values", address};
  if (!repeatable(ref)) return Why{"reaches it through an expression the split form would repeat", use};

  // The element index moves after the subscripts: only expressions without side effects may move.
  std::vector<const clang::Expr*> indexes;
  if (element) indexes.push_back(element->getIdx());
  for (const clang::ArraySubscriptExpr* s : subscripts) indexes.push_back(s->getIdx());
  for (const clang::Expr* index : indexes) {
    if (editedInside(index)) return Why{"has another access relayout rewrites in a subscript", use};
    if (indexes.size() > 1 && index->HasSideEffects(context_, /*IncludePossibleEffects=*/false))
      return Why{"has a subscript with side effects, which the split form would reorder", use};
  }
  const std::string notWritten = "is not written out in the file (it comes from a macro body)";
  std::string base = edits_.text(ref->getSourceRange());
  if (base.empty()) return Why{notWritten, use};
  std::vector<Subscript> values;
  for (const clang::ArraySubscriptExpr* s : subscripts) {
    auto value = subscriptText(s->getIdx());
    if (!value) return Why{notWritten, use};
    values.push_back(*value);
  }
  std::string elementText;  // empty: element 0 (p->f, p[0].f)
  if (element) {
    auto value = subscriptText(element->getIdx());
    if (!value) return Why{notWritten, use};
    if (!value->value) elementText = value->text;
    else if (*value->value != 0) elementText = std::to_string(*value->value);
  }
  // A restrict local names the array; the stride is always the parameter's.
  const DeviceLayout& layout = *info.planned->layout;
  std::string array = local ? *local : base + "." + layout.arrayOf(field->getNameAsString())->member;
  std::string index = splitIndex(dims, values, base + "." + layout.strideMember, elementText);
  if (!edits_.replaceTokens(use->getSourceRange(), array + "[" + index + "]", out)) return Why{notWritten, use};
  return std::nullopt;
}

}  // namespace relayout::rw
