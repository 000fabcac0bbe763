#include "AlignedRecords.h"

#include "StructScanner.h"

#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <fmt/format.h>

namespace relayout::rw {

namespace {

std::string refusal(const StructDef& def, unsigned align, const std::string& why) {
  return fmt::format("cannot align '{}' to {} bytes: {}", def.name, align, why);
}

// Allocation functions whose memory is aligned for any fundamental type (16 bytes on the targets
// nvcc supports): a cast of their result to the record's pointer is as aligned as before.
bool isAllocation(const clang::Expr* e) {
  const auto* call = llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenImpCasts());
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->getIdentifier()) return false;
  llvm::StringRef name = callee->getName();
  return name == "malloc" || name == "calloc" || name == "realloc" || name == "aligned_alloc";
}

const clang::RecordDecl* recordOf(clang::QualType type) {
  if (const clang::Type* base = type->getBaseElementTypeUnsafe())
    if (const clang::RecordDecl* record = base->getAsRecordDecl())
      return llvm::cast<clang::RecordDecl>(record->getCanonicalDecl());
  return nullptr;
}

class HazardFinder : public clang::RecursiveASTVisitor<HazardFinder> {
 public:
  HazardFinder(const std::map<const clang::RecordDecl*, StructDef*>& aligned, DiagRenderer& diags,
               clang::ASTContext& context)
      : aligned_(aligned), diags_(diags), context_(context), sm_(context.getSourceManager()) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFieldDecl(clang::FieldDecl* field) {
    if (sm_.isInSystemHeader(field->getLocation())) return true;
    // A lambda's captures: no code reads the closure's layout.
    if (field->isImplicit() || field->getParent()->isLambda()) return true;
    if (StructDef* def = find(field->getType()))
      refuse(*def, field->getLocation(),
             "'" + field->getParent()->getNameAsString() + "' holds it by value (field '" + field->getNameAsString() +
                 "'), and that record's layout would change with it");
    return true;
  }
  bool VisitExplicitCastExpr(clang::ExplicitCastExpr* cast) {
    if (sm_.isInSystemHeader(cast->getBeginLoc())) return true;
    clang::QualType to = cast->getType();
    if (!to->isPointerType()) return true;
    StructDef* def = find(to->getPointeeType());
    if (!def) return true;
    const clang::Expr* from = cast->getSubExpr();
    clang::QualType fromType = from->IgnoreParenImpCasts()->getType();
    if (fromType->isPointerType() && find(fromType->getPointeeType()) == def) return true;  // adds or drops const
    if (isAllocation(from) || from->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull))
      return true;
    refuse(*def, cast->getBeginLoc(),
           "a cast makes a pointer to it from other memory, which the alignment does not reach");
    return true;
  }

 private:
  StructDef* find(clang::QualType type) {
    const clang::RecordDecl* record = recordOf(type);
    auto it = record ? aligned_.find(record) : aligned_.end();
    return it == aligned_.end() ? nullptr : it->second;
  }
  void refuse(StructDef& def, clang::SourceLocation loc, const std::string& why) {
    def.refusals.push_back(diags_.warning(loc, refusal(def, def.align, why)));
  }

  const std::map<const clang::RecordDecl*, StructDef*>& aligned_;
  DiagRenderer& diags_;
  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
};

}  // namespace

void planAlignment(clang::ASTContext& context, const clang::RecordDecl* record, const StructPlan& plan,
                   SourceEdits& edits, DiagRenderer& diags, StructDef& def) {
  const bool dependent = record->isDependentContext() || llvm::isa<clang::ClassTemplateSpecializationDecl>(record);
  const clang::QualType type = context.getCanonicalTagType(record);
  const uint64_t size = dependent ? 0 : context.getTypeSizeInChars(type).getQuantity();
  const uint64_t align = dependent ? 0 : context.getTypeAlignInChars(type).getQuantity();
  def.align = plan.align ? plan.align : unsigned(size);
  auto refuse = [&](clang::SourceLocation loc, const std::string& why) {
    def.refusals.push_back(diags.warning(loc, refusal(def, def.align, why)));
  };
  if (record->isUnion()) return refuse(record->getLocation(), "it is a union");
  if (dependent) return refuse(record->getLocation(), "it is a template");
  if (!plan.align && !isVectorWidth(size))
    return refuse(record->getLocation(), fmt::format("its size, {} bytes, is neither 8 nor 16, the widths one "
                                                     "vector access moves; the plan may name a smaller one",
                                                     size));
  if (align >= def.align) return;  // already as aligned: nothing to write
  if (size % def.align != 0)
    return refuse(record->getLocation(), fmt::format("its size, {} bytes, is not a multiple of it, and padding "
                                                     "would change every array of it",
                                                     size));
  if (record->hasAttr<clang::AlignedAttr>())
    return refuse(record->getLocation(), "a smaller alignment is already written in its definition");
  // `struct alignas(N) P {`: after the class key, where an attribute of the class goes.
  std::optional<clang::SourceLocation> key = edits.written(record->getBeginLoc());
  const llvm::StringRef keyword =
      key ? edits.fileData(*key).substr(edits.sourceManager().getFileOffset(*key), edits.tokenLength(*key)) : "";
  if (keyword != "struct" && keyword != "class")
    return refuse(record->getLocation(),
                  "its definition is not written in an editable file with 'struct' or "
                  "'class' first (it comes from a macro or a template)");
  if (!edits.insertAfter(*key, fmt::format(" alignas({})", def.align), def.alignEdits))
    refuse(record->getLocation(), "its definition is not written in an editable file");
}

void refuseAlignmentHazards(clang::ASTContext& context, const std::map<const clang::RecordDecl*, StructDef*>& aligned,
                            DiagRenderer& diags) {
  if (aligned.empty()) return;
  HazardFinder(aligned, diags, context).TraverseDecl(context.getTranslationUnitDecl());
}

}  // namespace relayout::rw
