// Declarations of entities: `S* p` becomes `SDevice p` (the pointer's cv and restrict qualifiers
// go, a const on the pointer stays on the struct; a restrict parameter's arrays get restrict
// locals, RestrictLocals.cpp), edited token by token so the rest of the line
// keeps its formatting. Also the checks that need the whole unit: declaration groups and functions
// whose callers are not all visible.
#include "UseCollector.h"
#include "relayout/clangsupport/AstClimb.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/StringExtras.h>

namespace relayout::rw {

namespace {

bool isRestrict(llvm::StringRef t) { return t == "__restrict__" || t == "__restrict" || t == "restrict"; }
bool isSpace(char c) { return c == ' ' || c == '\t'; }
bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

}  // namespace

void UseCollector::declareEntity(const clang::DeclaratorDecl* decl, const EntityInfo& info) {
  Entity& e = entity(info);
  e.declared = true;
  const PlannedStruct& planned = *info.planned;
  const std::string& structName = planned.plan->name;
  std::string name = decl->getName().empty() ? std::string("an unnamed parameter") : "'" + decl->getNameAsString() + "'";
  auto refuseDecl = [&](const std::string& why) { refuse(info, decl->getLocation(), why, decl->getSourceRange()); };
  const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(decl);
  const auto* parm = llvm::dyn_cast<clang::ParmVarDecl>(decl);
  const clang::FunctionDecl* function = parm ? llvm::cast<clang::FunctionDecl>(parm->getDeclContext()) : nullptr;
  if (function && function->doesThisDeclarationHaveABody()) e.defined = true;
  if (function && e.undefinedWarning.empty())
    e.undefinedWarning = diags_.warning(function->getLocation(), refusalPrefix(structName) + "'" +
        function->getNameAsString() + "' receives a device array of it but is not defined in the given sources");

  if (!planned.definition)
    return refuseDecl(name + " is declared where the definition of '" + structName + "' is not visible");
  if (!planned.layout) return;  // the plan does not fit the struct: an error for the whole program
  if (!sm_.isBeforeInTranslationUnit(planned.definitionEnd, decl->getLocation()))
    return refuseDecl(name + " is declared before the end of the definition of '" + structName +
                      "', where its device layout is added");
  if (function) {
    if (llvm::isa<clang::CXXMethodDecl>(function))
      return refuseDecl(name + " is a parameter of a member function or lambda (not handled yet)");
    if (function != cloning_ && !rewrittenTemplate(function) &&
        (function->isTemplated() || function->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate))
      return refuseDecl(name + " is a parameter of a template (not handled yet)");
    if (parm->hasDefaultArg()) return refuseDecl(name + " has a default argument");
  } else if (field) {
    const clang::RecordDecl* parent = field->getParent();
    if (parent->isTemplated()) return refuseDecl(name + " is a member of a template (not handled yet)");
    if (parent->getDeclContext()->isFunctionOrMethod())
      return refuseDecl(name + " is a member of a struct defined inside a function (not handled yet)");
    if (!sm_.isBeforeInTranslationUnit(planned.definitionEnd, parent->getBeginLoc()))
      return refuseDecl(name + " is a member of '" + parent->getNameAsString() + "', whose definition starts before "
                        "the definition of '" + structName + "' ends");
  } else {
    if (var->hasAttr<clang::CUDADeviceAttr>() || var->hasAttr<clang::CUDAConstantAttr>() ||
        var->hasAttr<clang::CUDASharedAttr>())
      return refuseDecl(name + " is a __device__, __constant__ or __shared__ variable (not handled yet)");
    if (var->isTemplated()) return refuseDecl(name + " is declared in a template (not handled yet)");
    if (!var->isLocalVarDecl() && !var->isFileVarDecl()) return refuseDecl(name + " is a static data member");
  }
  std::vector<Edit> out;
  if (auto why = typeEdits(decl, info, out)) return refuseDecl(name + " " + *why);
  if (auto why = initEdits(decl, info, out))
    return refuseUnfollowedValue(info, decl->getLocation(), *why, decl->getSourceRange());
  e.edits.insert(e.edits.end(), out.begin(), out.end());
  if (parm) noteRestrictParam(parm, info);
}

// `= nullptr` / `= NULL` / `= 0` become `= {}`; `= q` and `= q + off` (q an entity of the same
// struct) link the two and become `= q` and `= relayoutOffset(q, off)`.
std::optional<std::string> UseCollector::initEdits(const clang::DeclaratorDecl* decl, const EntityInfo& info,
                                                   std::vector<Edit>& out) {
  std::string name = "'" + decl->getNameAsString() + "'";
  const clang::Expr* init = nullptr;
  bool copyInit = true;
  if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl)) {
    init = var->getInit();
    copyInit = var->getInitStyle() == clang::VarDecl::CInit;
  } else if (const auto* field = llvm::dyn_cast<clang::FieldDecl>(decl)) {
    init = field->getInClassInitializer();
    copyInit = field->getInClassInitStyle() == clang::ICIS_CopyInit;
  }
  if (!init || llvm::isa<clang::ParmVarDecl>(decl)) return std::nullopt;
  // A declaration after the struct's definition has its initializer there too: never kBeforeDefinition.
  Stored stored = copyInit ? storeValue(init, info, out) : Stored::kOther;
  if (stored == Stored::kDone) return std::nullopt;
  if (stored != Stored::kOther) return "the initializer of " + name + " is inside a macro";
  std::string text = edits_.text(init->getSourceRange());
  return name + " is initialized with '" + (text.empty() ? "..." : text) +
         "'; only a null pointer or another array of '" + info.planned->plan->name + "' (possibly '+ offset') can be "
         "rewritten";
}

std::optional<std::string> UseCollector::typeEdits(const clang::DeclaratorDecl* var, const EntityInfo& info,
                                                   std::vector<Edit>& out) {
  // A pointer to const elements becomes the read-only view, which keeps that promise for the fields.
  const auto* function = llvm::dyn_cast<clang::FunctionDecl>(var);
  const bool readOnly = (function ? function->getReturnType() : var->getType())->getPointeeType().isConstQualified();
  const std::string& deviceName = readOnly ? info.planned->layout->constName : info.planned->layout->deviceName;
  const clang::RecordDecl* record = info.planned->definition;
  std::string notSpelled = "does not have its type written as '" + info.planned->layout->baseName + "*'";
  clang::TypeSourceInfo* tsi = var->getTypeSourceInfo();
  if (!tsi) return notSpelled;
  clang::TypeLoc declared = tsi->getTypeLoc();
  clang::SourceLocation declBegin = var->getBeginLoc();
  if (function) {
    // A function's return type, from where it is written (after `static`, `__device__`, ...).
    auto signature = declared.getAsAdjusted<clang::FunctionTypeLoc>();
    if (!signature) return notSpelled;
    declared = signature.getReturnLoc();
    declBegin = declared.getBeginLoc();
  }
  auto pointer = declared.getUnqualifiedLoc().getAs<clang::PointerTypeLoc>();
  if (!pointer) return notSpelled + " (a typedef, auto or template type)";
  clang::TypeLoc pointee = pointer.getPointeeLoc().getUnqualifiedLoc();
  clang::SourceLocation nameLoc;
  std::string replacement = deviceName;
  if (auto named = pointee.getAs<clang::UsingTypeLoc>()) {
    // `using ns::Particle;` brought the struct's name in, not its device struct's: qualify it.
    nameLoc = named.getNameLoc();
    std::string qualified = record->getQualifiedNameAsString();
    llvm::StringRef scope = llvm::StringRef(qualified).drop_back(record->getName().size());
    replacement = scope.str() + deviceName;
  } else if (auto tag = pointee.getAs<clang::TagTypeLoc>()) {
    if (tag.isDefinition()) return std::string("is declared together with the struct's definition");
    nameLoc = tag.getNameLoc();
  } else if (auto param = pointee.getAs<clang::SubstTemplateTypeParmTypeLoc>(); param && cloning_) {
    nameLoc = param.getNameLoc();  // `const T* d` of the specialization being cloned
  } else if (auto alias = pointee.getAs<clang::TypedefTypeLoc>()) {
    if (!alias.getDecl()->getDeclContext()->getRedeclContext()->Equals(
            record->getDeclContext()->getRedeclContext()))
      return notSpelled;
    nameLoc = alias.getNameLoc();
  } else {
    return notSpelled;
  }
  auto begin = edits_.written(declBegin), typeName = edits_.written(nameLoc),
       star = edits_.written(pointer.getStarLoc());
  auto declName = var->getDeclName().isEmpty() ? std::optional<clang::SourceLocation>(star)
                                                : edits_.written(var->getLocation());
  if (!begin || !typeName || !star || !declName || sm_.getFileID(*begin) != sm_.getFileID(*declName) ||
      sm_.getFileID(*star) != sm_.getFileID(*begin))
    return std::string("is declared inside a macro");
  unsigned nameOffset = sm_.getFileOffset(*typeName), starOffset = sm_.getFileOffset(*star);

  // Before the struct's name: storage class, cv, an elaborated keyword and scope qualifiers. The
  // read-only view is const itself: the elements' `const` goes (with the space after it).
  std::vector<RawToken> head = edits_.rawTokens(*begin, nameOffset);
  std::vector<Edit> dropConst;
  for (size_t i = 0; i < head.size(); ++i) {
    llvm::StringRef t = head[i].text;
    bool qualifier = i + 1 < head.size() && head[i + 1].text == "::";
    if (t == "volatile") return std::string("is a pointer to volatile data");
    if (!(t == "static" || t == "extern" || t == "const" || t == "struct" || t == "class" || t == "::" || qualifier))
      return "has '" + t.str() + "' in its type, which relayout does not rewrite";
  }
  if (readOnly) edits_.dropConsts(*begin, nameOffset, dropConst);
  // A function's return type starts after its specifiers (`static __device__ const P* f()`): its
  // `const` is among them.
  if (function && readOnly) {
    // Where the declaration starts in the file, `__device__` being a macro.
    clang::SourceLocation start = sm_.getExpansionLoc(var->getBeginLoc());
    if (sm_.getFileID(start) != sm_.getFileID(*begin)) return std::string("is declared inside a macro");
    edits_.dropConsts(start, sm_.getFileOffset(*begin), dropConst);
  }
  // Between the name and the '*': cv only, unless this is a later declarator of a group (whose
  // other declarators are checked on their own). `Particle const*`: the name's edit takes the const.
  const unsigned nameEnd = nameOffset + edits_.tokenLength(*typeName);
  std::vector<RawToken> middle = edits_.rawTokens(typeName->getLocWithOffset(int(nameEnd - nameOffset)), starOffset);
  bool laterDeclarator = llvm::any_of(middle, [](const RawToken& t) { return t.text == ","; });
  unsigned nameEditEnd = nameEnd;
  for (const RawToken& t : middle) {
    if (t.text != "const") {
      if (laterDeclarator) break;  // the group's shared cv ends; the rest is an earlier declarator
      return "has '" + t.text + "' in its type, which relayout does not rewrite";
    }
    if (readOnly) nameEditEnd = t.offset + unsigned(t.text.size());
  }
  // From the '*' to the declared name (or, unnamed, to the ',' or ')' after the parameter): the '*',
  // then const or restrict.
  llvm::StringRef data = edits_.fileData(*star);
  unsigned declEnd = var->getDeclName().isEmpty() ? data.size() : sm_.getFileOffset(*declName);
  std::vector<RawToken> tail = edits_.rawTokens(*star, declEnd, var->getDeclName().isEmpty() ? 8 : SIZE_MAX);
  if (var->getDeclName().isEmpty())
    for (size_t i = 0; i < tail.size(); ++i)
      if (tail[i].text == "," || tail[i].text == ")" || tail[i].text == "=" || tail[i].text == "[") {
        tail.resize(i);
        break;
      }
  if (tail.empty()) return notSpelled;
  out.insert(out.end(), dropConst.begin(), dropConst.end());
  out.push_back(edits_.rawEdit(*typeName, nameEditEnd - nameOffset, replacement));
  if (readOnly) entity(info).helpers |= kConstView;
  // The declarator's tokens from the '*' on become one edit that keeps only a const:
  // "P *p", "P* p", "P*p", "P* __restrict__ p" -> "PSoA p"; "P* const p" -> "PSoA const p".
  std::vector<std::string> kept;
  for (size_t i = 0; i < tail.size(); ++i) {
    llvm::StringRef t = tail[i].text;
    if (t == "volatile") return std::string("is a volatile pointer");
    if (i == 0 ? t != "*" : !(isRestrict(t) || t == "const"))
      return "has '" + t.str() + "' in its declarator, which relayout does not rewrite";
    if (t == "const") kept.push_back("const");
  }
  unsigned from = starOffset;
  unsigned to = var->getDeclName().isEmpty() ? tail.back().offset + tail.back().text.size() : declEnd;
  char before = from ? data[from - 1] : ' ';
  char after = to < data.size() ? data[to] : ' ';
  if (isSpace(before) && !isIdentChar(after))
    while (from > 0 && isSpace(data[from - 1])) --from;  // "P *)" -> "PSoA)"
  std::string text = llvm::join(kept, " ");
  if (text.empty()) text = isIdentChar(before) && isIdentChar(after) ? " " : "";
  else text = (isSpace(before) ? "" : " ") + text + (isIdentChar(after) ? " " : "");
  out.push_back(edits_.rawEdit(star->getLocWithOffset(int(from) - int(starOffset)), to - from, text));
  return std::nullopt;
}

void UseCollector::checkDeclarationGroups() {
  for (const auto& [where, vars] : groups_) {
    if (vars.size() < 2) continue;
    const clang::DeclaratorDecl* other = nullptr;
    std::vector<std::pair<const clang::DeclaratorDecl*, const EntityInfo*>> members;
    for (const clang::DeclaratorDecl* var : vars) {
      if (const EntityInfo* info = entityOf(var)) members.push_back({var, info});
      else other = var;
    }
    if (members.empty()) continue;
    for (const auto& [var, info] : members) {
      if (!other && info->planned == members[0].second->planned) {
        facts_.links.emplace_back(members[0].second->key, info->key);  // one shared type name: together
      } else {
        std::string otherName = other ? other->getNameAsString() : members[0].first->getNameAsString();
        refuse(*info, var->getLocation(), "'" + var->getNameAsString() + "' is declared together with '" +
                                              otherName + "', which keeps its type; declare it on its own line",
               var->getSourceRange());
      }
    }
  }
}

void UseCollector::checkFunctionReferences() {
  for (const clang::DeclRefExpr* ref : functionRefs_) {
    if (callees_.count(ref)) continue;
    const auto* function = llvm::cast<clang::FunctionDecl>(ref->getDecl());
    std::vector<const EntityInfo*> infos{returnEntityOf(function)};
    for (const clang::ParmVarDecl* parm : function->parameters()) infos.push_back(entityOf(parm));
    for (const EntityInfo* info : infos)
      if (info)
        refuse(*info, ref->getLocation(), "'" + function->getNameAsString() +
               "' is used here other than in a direct call, so relayout cannot see all its callers",
               ref->getSourceRange());
  }
}

void UseCollector::refuseUnconsumed() {
  for (const clang::Expr* ref : refs_) {
    if (consumed_.count(ref)) continue;
    // `(void)p;` only silences an unused-variable warning.
    const clang::Stmt* at = ref;
    const clang::Stmt* up = climbPast(context_, at, isParenOrImplicitCast);
    if (const auto* cast = llvm::dyn_cast_or_null<clang::ExplicitCastExpr>(up); cast && cast->getCastKind() == clang::CK_ToVoid)
      continue;
    auto [why, range] = describeUse(ref);
    refuse(*entityOfRef(ref), ref->getExprLoc(), why, range);
  }
}

}  // namespace relayout::rw
