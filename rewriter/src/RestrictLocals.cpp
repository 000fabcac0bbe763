// `__restrict__` on a rewritten parameter. The device struct's members cannot carry it: nvcc
// ignores restrict on struct members (no ld.global.nc, no reordering), and honours it only on
// pointer parameters and locals. So a function whose parameter `const P* __restrict__ p` becomes
// `const PSoA p` gets, at the top of its body, one restrict-qualified local per array it reads or
// writes (`const float* __restrict__ p_x = p.x;`), and its field accesses use them (`p_x[i]`).
// Uses of the whole struct (calls, views, relayoutLoad) keep using `p`. A parameter assigned in
// the body keeps plain accesses: the locals would go stale.
//
// Where the user did not mark a parameter, relayout declares the locals only where it proves the
// promise (RestrictProof.cpp); then every access is recorded in both forms (Edit::restrictForm) and
// the whole program picks one per parameter.
#include "UseCollector.h"

#include <clang/AST/QualTypeNames.h>
#include <clang/Lex/Lexer.h>

namespace relayout::rw {

namespace {

// Whether the body assigns the parameter, moves it, or takes its address.
bool changesParam(const clang::Stmt* stmt, const clang::ParmVarDecl* parm) {
  if (!stmt) return false;
  auto names = [&](const clang::Expr* e) {
    const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == parm;
  };
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(stmt);
      binary && binary->isAssignmentOp() && names(binary->getLHS()))
    return true;
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(stmt);
      unary && (unary->isIncrementDecrementOp() || unary->getOpcode() == clang::UO_AddrOf) &&
      names(unary->getSubExpr()))
    return true;
  for (const clang::Stmt* child : stmt->children())
    if (changesParam(child, parm)) return true;
  return false;
}

}  // namespace

void UseCollector::noteRestrictParam(const clang::ParmVarDecl* parm, const EntityInfo& info) {
  const auto* function = llvm::dyn_cast<clang::FunctionDecl>(parm->getDeclContext());
  if (cloning_ || !function || !function->doesThisDeclarationHaveABody()) return;
  bool declared = parm->getType().isRestrictQualified();
  bool kernel = function->hasAttr<clang::CUDAGlobalAttr>();
  if (!declared && !kernel && !function->hasAttr<clang::CUDADeviceAttr>()) return;  // host code: no promise
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(function->getBody());
  if (!body || changesParam(body, parm)) return;
  auto lbrace = edits_.written(body->getLBracLoc()), rbrace = edits_.written(body->getRBracLoc());
  if (!lbrace || !rbrace || sm_.getFileID(*lbrace) != sm_.getFileID(*rbrace)) return;
  RestrictParam r;
  r.info = &info;
  r.body = body;
  r.pointeeConst = parm->getType()->getPointeeType().isConstQualified();
  if (!declared) {
    // Relayout's own promise: both forms are recorded; a refusal in any unit or instance keeps the
    // plain one (Entity::restrictRefused).
    r.inferred = true;
    std::set<std::string> written;
    auto why = restrictRefusal(parm, info, written);
    // A template's instances share its text: a device function's locals must be the same in each.
    auto [known, added] = inferredWrites_.try_emplace(info.key, written);
    if (!why && !kernel && !added && known->second != written) why = "its instances write different arrays";
    if (why) {
      Entity& e = entity(info);
      if (e.restrictRefused.empty()) e.restrictRefused = *why;
    }
    if (!kernel) r.only = std::move(written);
  }
  // Every identifier of the body: a local's name must shadow nothing the body names.
  llvm::StringRef data = edits_.fileData(*lbrace);
  unsigned end = sm_.getFileOffset(*rbrace);
  clang::Lexer lexer(sm_.getLocForStartOfFile(sm_.getFileID(*lbrace)), context_.getLangOpts(), data.begin(),
                     data.begin() + sm_.getFileOffset(*lbrace), data.end());
  clang::Token token;
  while (!lexer.LexFromRawLexer(token) && sm_.getFileOffset(token.getLocation()) < end)
    if (token.is(clang::tok::raw_identifier)) r.taken.insert(token.getRawIdentifier().str());
  r.taken.insert(parm->getNameAsString());
  restrictParams_[parm] = std::move(r);
}

std::optional<std::string> UseCollector::restrictLocal(const clang::Expr* ref, const DeviceArray& array) {
  const auto* declRef = llvm::dyn_cast<clang::DeclRefExpr>(ref);
  const auto* parm = declRef ? llvm::dyn_cast<clang::ParmVarDecl>(declRef->getDecl()) : nullptr;
  if (!parm || declRef->refersToEnclosingVariableOrCapture()) return std::nullopt;  // a lambda's capture
  auto it = restrictParams_.find(parm);
  if (it == restrictParams_.end()) return std::nullopt;
  RestrictParam& r = it->second;
  if (r.only && !r.only->count(array.member)) return std::nullopt;  // read-only in a device function
  auto known = r.locals.find(array.member);
  if (known != r.locals.end()) return known->second;
  std::string base = parm->getNameAsString() + "_" + array.member, name = base;
  for (int i = 2; r.taken.count(name); ++i) name = base + "_" + std::to_string(i);
  r.taken.insert(name);
  return r.locals[array.member] = name;
}

bool UseCollector::inferredRestrict(const clang::Expr* ref) const {
  const auto* declRef = llvm::dyn_cast<clang::DeclRefExpr>(ref);
  const auto* parm = declRef ? llvm::dyn_cast<clang::ParmVarDecl>(declRef->getDecl()) : nullptr;
  auto it = parm ? restrictParams_.find(parm) : restrictParams_.end();
  return it != restrictParams_.end() && it->second.inferred;
}

// One declaration per array the body uses, after the body's '{': on lines of their own when the
// body starts on a new line (indented like its first statement), else on the brace's line.
void UseCollector::emitRestrictLocals() {
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  policy.SuppressUnwrittenScope = true;
  for (const auto& [parm, r] : restrictParams_) {
    if (r.locals.empty()) continue;
    const DeviceLayout& layout = *r.info->planned->layout;
    // The cluster structs live next to the struct: name them as the code names it ("sim::").
    const clang::RecordDecl* record = r.info->planned->definition;
    std::string qualified =
        clang::TypeName::getFullyQualifiedName(context_.getCanonicalTagType(record), context_, policy);
    std::string scope = llvm::StringRef(qualified).ends_with("::" + layout.baseName)
                            ? qualified.substr(0, qualified.size() - layout.baseName.size())
                            : "";
    // Each local's declaration, and for an array field that may be split by index, the split one.
    struct Decl {
      std::string text, split;
      const DeviceArray* array;
    };
    std::vector<Decl> decls;
    auto pointerTo = [&](clang::QualType element, const std::string& name) {
      if (r.pointeeConst) element = context_.getConstType(element);
      std::string text = element.getAsString(policy);
      if (text.find_first_of("([") == std::string::npos) return text + "* __restrict__ " + name;
      std::string decl;  // an array field: clang places the declarator, `float (*__restrict p_n)[3]`
      llvm::raw_string_ostream os(decl);
      context_.getPointerType(element).withRestrict().print(os, policy, name);
      os.flush();
      if (size_t at = decl.find("__restrict "); at != std::string::npos) decl.replace(at, 11, "__restrict__ ");
      return decl;
    };
    for (const DeviceArray& array : layout.arrays) {
      auto local = r.locals.find(array.member);
      if (local == r.locals.end()) continue;
      std::string init = " = " + parm->getNameAsString() + "." + array.member + ";";
      if (!array.clusterStruct.empty()) {
        decls.push_back(
            {(r.pointeeConst ? "const " : "") + scope + array.clusterStruct + "* __restrict__ " + local->second + init,
             "", &array});
        continue;
      }
      const clang::FieldDecl* field = nullptr;
      for (const clang::FieldDecl* f : r.info->planned->definition->fields())
        if (f->getNameAsString() == array.fields[0]) field = f;
      if (!field) continue;
      clang::QualType type = clang::TypeName::getFullyQualifiedType(field->getType(), context_);
      Decl decl{pointerTo(type, local->second) + init, "", &array};
      if (hasUnnamedSpelling(type.getAsString(policy)))  // `union {...} u`: named through the member
        decl.text = (r.pointeeConst ? "const " : "") + std::string("decltype(") + memberPath(field) +
                    ")* __restrict__ " + local->second + init;
      if (splittable(field, *r.info)) decl.split = pointerTo(context_.getBaseElementType(type), local->second) + init;
      decls.push_back(std::move(decl));
    }
    clang::SourceLocation lbrace = *edits_.written(r.body->getLBracLoc());
    llvm::StringRef data = edits_.fileData(lbrace);
    unsigned after = sm_.getFileOffset(lbrace) + 1;
    size_t lineEnd = data.find('\n', after);
    std::string separator = " ";
    if (lineEnd != llvm::StringRef::npos && data.slice(after, lineEnd).trim().empty()) {
      size_t next = lineEnd + 1;
      while (next < data.size() && data.slice(next, data.find('\n', next)).trim().empty()) {
        size_t nl = data.find('\n', next);
        if (nl == llvm::StringRef::npos) break;
        next = nl + 1;
      }
      std::string indent;
      for (size_t i = next; i < data.size() && (data[i] == ' ' || data[i] == '\t'); ++i) indent += data[i];
      if (indent.empty()) indent = "  ";
      separator = "\n" + indent;
    }
    // One insertion per local, ordered by parameter, then array: a split field's declaration is
    // a form of its own. Inferred locals exist only in their form (Edit::restrictForm).
    Edit::Form form = r.inferred ? Edit::kWithRestrict : Edit::kAlways;
    for (size_t k = 0; k < decls.size(); ++k) {
      Edit edit = edits_.rawEdit(lbrace.getLocWithOffset(1), 0, separator + decls[k].text);
      edit.anyOrder = true;
      edit.order = (parm->getFunctionScopeIndex() + 1) << 16 | unsigned(k);
      edit.restrictForm = form;
      if (decls[k].split.empty()) {
        addEdits(*r.info, {edit});
        continue;
      }
      Edit split = edit;
      split.text = separator + decls[k].split;
      entity(*r.info).forms.push_back({decls[k].array->fields[0], {split}, {edit}});
    }
  }
}

}  // namespace relayout::rw
