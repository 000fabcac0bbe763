#include "RecordInfo.h"

#include <clang/AST/RecordLayout.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/StringExtras.h>

namespace relayout {

std::string recordName(const clang::RecordDecl* record) {
  if (record->getIdentifier()) return record->getQualifiedNameAsString();
  if (const clang::TypedefNameDecl* typedefName = record->getTypedefNameForAnonDecl())
    return typedefName->getQualifiedNameAsString();
  return record->getQualifiedNameAsString();
}

bool isLayoutCandidate(const clang::RecordDecl* record, const clang::SourceManager& sm) {
  if (!record || record->isUnion() || record->isInvalidDecl()) return false;
  const clang::RecordDecl* definition = record->getDefinition();
  if (!definition) return false;
  return !sm.isInSystemHeader(definition->getLocation());
}

std::optional<std::string> nonAsciiField(const clang::RecordDecl* record) {
  for (const clang::FieldDecl* field : record->fields()) {
    llvm::StringRef name = field->getName();
    bool identifier = name.empty() || ((llvm::isAlpha(name[0]) || name[0] == '_') &&
                                       llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }));
    if (!identifier) return name.str();
  }
  return std::nullopt;
}

SourceLocation presumedLocation(clang::SourceLocation loc, const clang::SourceManager& sm) {
  clang::PresumedLoc presumed = sm.getPresumedLoc(sm.getFileLoc(loc));
  if (presumed.isInvalid()) return {};
  return {presumed.getFilename(), presumed.getLine(), presumed.getColumn()};
}

StructInfo describeRecord(const clang::RecordDecl* record, clang::ASTContext& context) {
  const clang::RecordDecl* definition = record->getDefinition();
  const clang::ASTRecordLayout& layout = context.getASTRecordLayout(definition);
  StructInfo info;
  info.name = recordName(definition);
  info.location = presumedLocation(definition->getLocation(), context.getSourceManager());
  info.size = static_cast<unsigned>(layout.getSize().getQuantity());
  info.align = static_cast<unsigned>(layout.getAlignment().getQuantity());
  for (const clang::FieldDecl* field : definition->fields()) {
    FieldInfo f;
    f.name = field->getNameAsString();
    f.type = field->getType().getAsString(context.getPrintingPolicy());
    f.offset =
        static_cast<unsigned>(context.toCharUnitsFromBits(layout.getFieldOffset(field->getFieldIndex())).getQuantity());
    if (!field->isBitField()) {
      f.size = static_cast<unsigned>(context.getTypeSizeInChars(field->getType()).getQuantity());
      f.align = static_cast<unsigned>(context.getTypeAlignInChars(field->getType()).getQuantity());
    }
    // Arrays of arrays flatten into several extents, outermost first.
    for (clang::QualType t = field->getType();
         const clang::ConstantArrayType* array = context.getAsConstantArrayType(t); t = array->getElementType())
      f.extents.push_back(array->getSize().getZExtValue());
    info.fields.push_back(std::move(f));
  }
  return info;
}

}  // namespace relayout
