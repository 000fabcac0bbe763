#include "StructScanner.h"

#include "AlignedRecords.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/QualTypeNames.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

namespace relayout::rw {

std::string recordName(const clang::RecordDecl* record) {
  if (record->getIdentifier()) return record->getQualifiedNameAsString();
  if (const clang::TypedefNameDecl* typedefName = record->getTypedefNameForAnonDecl())
    return typedefName->getQualifiedNameAsString();
  return record->getQualifiedNameAsString();
}

static std::string spelledName(const clang::RecordDecl* record) {
  if (record->getIdentifier()) return record->getNameAsString();
  if (const clang::TypedefNameDecl* typedefName = record->getTypedefNameForAnonDecl())
    return typedefName->getNameAsString();
  return "";
}

bool keepsPrivate(const clang::FieldDecl* field) {
  return field->getAccess() == clang::AS_private || field->getAccess() == clang::AS_protected;
}

bool hasUnnamedSpelling(const std::string& spelled) {
  return spelled.find("(unnamed") != std::string::npos || spelled.find("(anonymous") != std::string::npos ||
         spelled.find("(lambda") != std::string::npos;
}

std::string memberPath(const clang::FieldDecl* field) {
  const clang::RecordDecl* record = field->getParent();
  clang::PrintingPolicy policy = record->getASTContext().getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;  // no "(anonymous namespace)::"
  std::string text;
  llvm::raw_string_ostream os(text);
  if (record->getIdentifier()) record->printQualifiedName(os, policy);
  else if (const clang::TypedefNameDecl* typedefName = record->getTypedefNameForAnonDecl())
    typedefName->printQualifiedName(os, policy);
  return text + "::" + field->getNameAsString();
}

namespace {

class DefinitionFinder : public clang::RecursiveASTVisitor<DefinitionFinder> {
 public:
  DefinitionFinder(const clang::SourceManager& sm, std::vector<const clang::RecordDecl*>& out,
                   std::map<const clang::RecordDecl*, std::vector<const clang::TypedefNameDecl*>>& typedefs)
      : sm_(sm), out_(out), typedefs_(typedefs) {}
  bool TraverseDecl(clang::Decl* decl) {
    if (decl && !llvm::isa<clang::TranslationUnitDecl>(decl) && sm_.isInSystemHeader(decl->getLocation())) return true;
    return RecursiveASTVisitor::TraverseDecl(decl);
  }
  bool VisitRecordDecl(clang::RecordDecl* record) {
    if (record->isThisDeclarationADefinition() && !record->isImplicit()) out_.push_back(record);
    return true;
  }
  // `typedef struct _N {...} N;` and `typedef struct _N N;`: the plan may name the struct either way.
  bool VisitTypedefNameDecl(clang::TypedefNameDecl* typedefName) {
    const auto* tag = typedefName->getUnderlyingType()->getAsRecordDecl();
    if (tag && tag->getIdentifier() && !tag->getTypedefNameForAnonDecl())
      typedefs_[llvm::cast<clang::RecordDecl>(tag->getCanonicalDecl())].push_back(typedefName);
    return true;
  }

 private:
  const clang::SourceManager& sm_;
  std::vector<const clang::RecordDecl*>& out_;
  std::map<const clang::RecordDecl*, std::vector<const clang::TypedefNameDecl*>>& typedefs_;
};

}  // namespace

void StructScanner::scan() {
  std::vector<const clang::RecordDecl*> records;
  DefinitionFinder(context_.getSourceManager(), records, typedefs_).TraverseDecl(context_.getTranslationUnitDecl());
  // Aligned records and their defs, by index: facts_.defs grows in this loop, so no pointer yet.
  std::vector<std::pair<const clang::RecordDecl*, size_t>> aligned;
  for (const clang::RecordDecl* record : records)
    if (const StructPlan* plan = plan_.findStruct(planName(record))) {
      addDefinition(record, *plan);
      if (plan->layout == Layout::Aligned) {
        planAlignment(context_, record, *plan, edits_, diags_, facts_.defs.back());
        aligned.emplace_back(llvm::cast<clang::RecordDecl>(record->getCanonicalDecl()), facts_.defs.size() - 1);
      }
    }
  std::map<const clang::RecordDecl*, StructDef*> byRecord;
  for (const auto& [record, index] : aligned) byRecord[record] = &facts_.defs[index];
  refuseAlignmentHazards(context_, byRecord, diags_);
}

std::string StructScanner::planName(const clang::RecordDecl* record) const {
  std::string name = recordName(record);
  if (plan_.findStruct(name)) return name;
  auto aliases = typedefs_.find(llvm::cast<clang::RecordDecl>(record->getCanonicalDecl()));
  if (aliases != typedefs_.end())
    for (const clang::TypedefNameDecl* alias : aliases->second)
      if (plan_.findStruct(alias->getQualifiedNameAsString())) return alias->getQualifiedNameAsString();
  return "";
}

const PlannedStruct* StructScanner::planned(const clang::RecordDecl* record) {
  record = llvm::cast<clang::RecordDecl>(record->getCanonicalDecl());
  auto known = byRecord_.find(record);
  if (known != byRecord_.end()) return known->second;
  const PlannedStruct* result = nullptr;
  const clang::RecordDecl* definition = record->getDefinition();
  std::string name = planName(definition ? definition : record);
  if (const StructPlan* plan = name.empty() ? nullptr : plan_.findStruct(name); plan && splitsFields(plan->layout)) {
    auto [it, inserted] = byName_.try_emplace(name);
    if (inserted) it->second.plan = plan;  // declared but not defined in this unit
    result = &it->second;
  }
  byRecord_[record] = result;
  return result;
}

FieldFacts StructScanner::describeField(const clang::FieldDecl* field) {
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  policy.SuppressUnwrittenScope = true;  // no "(anonymous namespace)::"
  // A type's spelling, its pointer's and its const pointer's, and their declarations with "@" for
  // the name.
  auto spell = [&](clang::QualType type, std::string& value, std::string& valueDecl, std::string& constValueDecl,
                   std::string& pointer, std::string& pointerDecl, std::string& constPointerDecl) {
    value = type.getAsString(policy);
    auto print = [&](clang::QualType t, const char* placeholder) {  // function pointers and the like
      std::string text;
      llvm::raw_string_ostream os(text);
      t.print(os, policy, placeholder);
      return text;
    };
    // `const int**` is not the const view of an `int**`: a pointer's const goes after its '*'.
    const bool plain = value.find_first_of("([*&") == std::string::npos;
    constValueDecl = plain ? "const " + value + " @" : print(type.withConst(), "@");
    constPointerDecl = plain ? "const " + value + "* @" : print(context_.getPointerType(type.withConst()), "@");
    if (value.find_first_of("([") == std::string::npos) {
      valueDecl = value + " @";
      pointer = value + "*";
      pointerDecl = value + "* @";
      return;
    }
    valueDecl = print(type, "@");
    pointer = print(context_.getPointerType(type), "");
    pointerDecl = print(context_.getPointerType(type), "@");
  };
  clang::QualType type = clang::TypeName::getFullyQualifiedType(field->getType(), context_);
  FieldFacts facts;
  facts.name = field->getNameAsString();
  spell(type, facts.type, facts.valueDecl, facts.constValueDecl, facts.pointerType, facts.pointerDecl,
        facts.constPointerDecl);
  if (hasUnnamedSpelling(facts.type)) {
    // `union { float f; int i; } u;`: its type has no name to write, so generated code names it
    // through the member (valid in an unevaluated operand since C++11).
    std::string named = "decltype(" + memberPath(field) + ")";
    facts.type = named;
    facts.valueDecl = named + " @";
    facts.constValueDecl = "const " + named + " @";
    facts.pointerType = named + "*";
    facts.pointerDecl = named + "* @";
    facts.constPointerDecl = "const " + named + "* @";
  }
  // A class template's pattern (refused in checkShape) has fields of no size yet.
  if (field->getType()->isDependentType() || field->getType()->isIncompleteType()) return facts;
  facts.size = context_.getTypeSizeInChars(field->getType()).getQuantity();
  facts.align = context_.getTypeAlignInChars(field->getType()).getQuantity();
  facts.isArray = field->getType()->isArrayType();
  if (facts.isArray) {
    clang::QualType scalar = type;
    while (const clang::ConstantArrayType* array = context_.getAsConstantArrayType(scalar)) {
      facts.dims.push_back(array->getSize().getZExtValue());
      scalar = array->getElementType();
    }
    std::string valueDecl, constValueDecl;
    spell(scalar, facts.scalarType, valueDecl, constValueDecl, facts.scalarPointerType, facts.scalarPointerDecl,
          facts.constScalarPointerDecl);
  }
  return facts;
}

void StructScanner::addDefinition(const clang::RecordDecl* record, const StructPlan& plan) {
  StructDef def;
  def.name = plan.name;
  def.spelled = spelledName(record);
  // Planned by a typedef's name (`typedef struct _N {...} N;` as "N"): generated code spells it so.
  if (def.name != recordName(record)) {
    auto [scope, last] = llvm::StringRef(def.name).rsplit("::");
    def.spelled = (last.empty() ? scope : last).str();
  }
  for (const clang::FieldDecl* field : record->fields()) {
    def.fields.push_back(describeField(field));
    def.privateFields |= keepsPrivate(field);
  }

  clang::SourceLocation end;
  bool placed = findInsertion(record, def, end);
  if (splitsFields(plan.layout)) {
    auto layout = makeDeviceLayout(plan, def.spelled, def.fields);
    PlannedStruct& entry = byName_[def.name];
    entry.plan = &plan;
    if (!entry.definition) {
      entry.definition = record;
      entry.definitionEnd = end;
    }
    byRecord_[llvm::cast<clang::RecordDecl>(record->getCanonicalDecl())] = &entry;
    if (layout) {
      if (!placed)
        def.refusals.push_back(diags_.warning(record->getLocation(),
            "cannot change the layout of '" + def.name + "': its definition is not written in an editable file "
            "(it comes from a macro or a system header)"));
      checkShape(record, *layout, def);
      if (!entry.layout) entry.layout = std::move(*layout);
    } else {
      llvm::consumeError(layout.takeError());  // reported once for the whole program
    }
    def.keptNote = diags_.note(record->getLocation(), "'" + def.name + "' keeps its layout: the plan's " +
                                                          toString(plan.layout) + " layout is not applied");
    def.noArraysWarning = diags_.warning(record->getLocation(),
        "no device array of '" + def.name + "' to rewrite: relayout looks for 'cudaMalloc(&d, ...)' into a " +
        def.spelled + "* variable");
  }
  facts_.defs.push_back(std::move(def));
}

void StructScanner::checkShape(const clang::RecordDecl* record, const DeviceLayout& layout, StructDef& def) {
  auto refuse = [&](clang::SourceLocation loc, const std::string& why) {
    def.refusals.push_back(diags_.warning(loc, "cannot change the layout of '" + def.name + "': " + why));
  };
  if (def.spelled.empty()) refuse(record->getLocation(), "it has no name to derive the device layout's names from");
  if (!record->getDeclContext()->isFileContext())
    refuse(record->getLocation(), "it is defined inside a function, class or extern \"C\" block; its device layout "
                                  "and helpers need namespace scope");
  if (record->isUnion()) refuse(record->getLocation(), "it is a union");
  if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record)) {
    if (cxx->getNumBases() || cxx->getNumVBases()) refuse(record->getLocation(), "it has base classes");
    if (cxx->isPolymorphic()) refuse(record->getLocation(), "it has virtual functions");
    if (!cxx->isTriviallyCopyable()) refuse(record->getLocation(), "it is not trivially copyable");
    if (cxx->getDescribedClassTemplate() || llvm::isa<clang::ClassTemplateSpecializationDecl>(cxx) ||
        cxx->isDependentContext())
      refuse(record->getLocation(), "it is a template");
  }
  for (const clang::FieldDecl* field : record->fields()) {
    std::string name = "field '" + field->getNameAsString() + "' ";
    clang::QualType type = field->getType();
    if (field->isBitField()) refuse(field->getLocation(), name + "is a bit-field");
    else if (field->isUnnamedBitField() || field->getName().empty())
      refuse(field->getLocation(), "it has an anonymous member");
    else if (type->isVariableArrayType() || type->isIncompleteArrayType())
      refuse(field->getLocation(), name + "is an array without a fixed size");
    else if (type->isReferenceType()) refuse(field->getLocation(), name + "is a reference");
    else if (type.isConstQualified() || type.isVolatileQualified())
      refuse(field->getLocation(), name + "is const or volatile");
    else if (type->isArrayType() && hasUnnamedSpelling(clang::QualType(type->getBaseElementTypeUnsafe(), 0).getAsString()))
      refuse(field->getLocation(), name + "is an array of a type without a name, which its split arrays would "
                                          "have to spell");
    else if (!type->isDependentType() && !type->isIncompleteType() && context_.getTypeAlignInChars(type).getQuantity() > 16)
      refuse(field->getLocation(), name + "is aligned to more than 16 bytes, more than new[] guarantees for "
                                          "the host staging buffer");
  }
  // The generated names must be free in the struct's scope.
  for (const std::string& generated : layout.declaredNames()) {
    auto found = record->getDeclContext()->getRedeclContext()->lookup(&context_.Idents.get(generated));
    if (!found.empty())
      refuse((*found.begin())->getLocation(), "the name '" + generated + "', which its device layout needs, is "
                                                                         "already declared");
  }
}

// The device layout goes after the ';' that ends the definition's declaration: at the start of
// the next line when only a comment follows on that line, so comments stay with their code.
bool StructScanner::findInsertion(const clang::RecordDecl* record, StructDef& def, clang::SourceLocation& end) {
  auto brace = edits_.written(record->getBraceRange().getEnd());
  if (!brace || !edits_.written(record->getBeginLoc())) return false;
  const clang::SourceManager& sm = context_.getSourceManager();
  llvm::StringRef data = edits_.fileData(*brace);
  unsigned offset = sm.getFileOffset(*brace);
  clang::Lexer lexer(sm.getLocForStartOfFile(sm.getFileID(*brace)), context_.getLangOpts(), data.begin(),
                     data.begin() + offset + 1, data.end());
  clang::Token token;
  int depth = 0;
  for (;;) {
    if (lexer.LexFromRawLexer(token) || token.is(clang::tok::eof)) return false;
    if (token.isOneOf(clang::tok::l_paren, clang::tok::l_square, clang::tok::l_brace)) ++depth;
    if (token.isOneOf(clang::tok::r_paren, clang::tok::r_square, clang::tok::r_brace)) --depth;
    if (depth == 0 && token.is(clang::tok::semi)) break;
  }
  end = token.getLocation();
  unsigned after = sm.getFileOffset(end) + 1;
  size_t lineEnd = data.find('\n', after);
  llvm::StringRef rest = data.slice(after, lineEnd == llvm::StringRef::npos ? data.size() : lineEnd).trim();
  if (lineEnd != llvm::StringRef::npos && (rest.empty() || rest.starts_with("//"))) {
    def.insertAtLineStart = true;
    def.insertOffset = lineEnd + 1;
    size_t next = data.find('\n', lineEnd + 1);
    def.blankLineFollows = data.slice(lineEnd + 1, next == llvm::StringRef::npos ? data.size() : next).trim().empty();
  } else {
    def.insertOffset = after;
  }
  def.file = edits_.filePath(*brace);
  def.closeBraceOffset = offset;
  auto name = edits_.written(record->getLocation());
  def.nameOffset = name && sm.getFileID(*name) == sm.getFileID(*brace) ? sm.getFileOffset(*name) : offset;
  def.includeOffset = includePoint(record, *brace);
  return true;
}

// The start of the line of the outermost declaration holding `record` (its typedef for `typedef
// struct {...} P;`), so headers included there land at global scope; the struct's own line where
// that declaration starts in another file.
unsigned StructScanner::includePoint(const clang::RecordDecl* record, clang::SourceLocation brace) {
  const clang::Decl* outer = record;
  while (!outer->getDeclContext()->isTranslationUnit())
    outer = clang::Decl::castFromDeclContext(outer->getDeclContext());
  clang::SourceLocation begin = outer->getBeginLoc();
  if (outer == record)
    if (const clang::TypedefNameDecl* typedefName = record->getTypedefNameForAnonDecl())
      begin = typedefName->getBeginLoc();
  const clang::SourceManager& sm = context_.getSourceManager();
  auto written = edits_.written(begin);
  if (!written || sm.getFileID(*written) != sm.getFileID(brace)) written = edits_.written(record->getBeginLoc());
  llvm::StringRef data = edits_.fileData(*written);
  size_t lineStart = data.rfind('\n', sm.getFileOffset(*written));
  return lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
}

}  // namespace relayout::rw
