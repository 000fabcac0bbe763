// A device array passed to a function template (`fetch(p, n)` with `template <class T>
// std::vector<T> fetch(const T* d, size_t n)`) cannot reach the template itself: T would have to
// be the device struct, which has no `T*`. Instead the specialization the call uses is read like a
// plain function, and its text, with the edits that reading made and every use of the template's
// type parameter spelled out, becomes a non-template overload for the device struct right after the
// template. Overload resolution picks it (the template cannot deduce T from the device struct);
// other specializations keep using the template.
#include "UseCollector.h"

#include <clang/AST/QualTypeNames.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace relayout::rw {

namespace {

// Where the pattern names one template type parameter.
class ParamUses : public clang::RecursiveASTVisitor<ParamUses> {
 public:
  explicit ParamUses(const clang::TemplateTypeParmDecl* param) : param_(param) {}
  bool VisitTemplateTypeParmTypeLoc(clang::TemplateTypeParmTypeLoc loc) {
    if (loc.getDecl() == param_) locs.push_back(loc.getNameLoc());
    return true;
  }
  std::vector<clang::SourceLocation> locs;

 private:
  const clang::TemplateTypeParmDecl* param_;
};

}  // namespace

bool UseCollector::handleTemplateCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  if (callee->getTemplatedKind() != clang::FunctionDecl::TK_FunctionTemplateSpecialization ||
      llvm::isa<clang::CXXMethodDecl>(callee) || rewrittenTemplate(callee))
    return false;
  const clang::FunctionDecl* pattern = callee->getTemplateInstantiationPattern();
  if (!pattern || !pattern->hasBody() || !callee->hasBody()) return false;
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (!ref) return false;
  // `f<T>(p)` (`k<T><<<g, b>>>(p)`) considers only the template: the explicit arguments go, so that
  // the call sees the overload, which takes the device struct where the template cannot deduce T.
  std::vector<Edit> deduced;
  if (ref->hasExplicitTemplateArgs() &&
      !edits_.replaceTokens({ref->getLAngleLoc(), ref->getRAngleLoc()}, "", deduced))
    return false;
  bool any = false;
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
    EntityExpr arg = entityExpr(call->getArg(i));
    const EntityInfo* param = arg ? entityOf(callee->getParamDecl(i)) : nullptr;
    if (!param || param->planned != arg.info->planned) continue;  // left to describeUse
    any = true;
    passThroughClone(callee, *param);
    std::vector<Edit> out;
    if (!rewriteEntityExpr(arg, out))
      refuse(*param, call->getArg(i)->getBeginLoc(), "this argument is not written out in the file (it comes from a "
             "macro body)", call->getArg(i)->getSourceRange());
    facts_.links.emplace_back(arg.info->key, param->key);
    addEdits(*param, out, arg.offset ? unsigned(kOffset) : 0u);
    addEdits(*param, deduced);  // once: every array of the call changes with the clone (linked)
    deduced.clear();
  }
  return any;
}

std::string UseCollector::cloneSpecialization(const clang::FunctionDecl* spec, const EntityInfo& param) {
  const clang::FunctionDecl* pattern = spec->getTemplateInstantiationPattern();
  const clang::FunctionTemplateDecl* primary = spec->getPrimaryTemplate();
  const clang::TemplateArgumentList* args = spec->getTemplateSpecializationArgs();
  std::string name = "'" + spec->getNameAsString() + "'";
  auto refuseClone = [&](const std::string& why) {
    std::string reason = name + " is a template " + why;
    refuse(param, spec->getLocation(), reason, pattern->getSourceRange());
    return reason;
  };
  if (!primary || !args || args->size() != 1 || args->get(0).getKind() != clang::TemplateArgument::Type ||
      primary->getTemplateParameters()->size() != 1)
    return refuseClone("with other than one type parameter; relayout writes an overload only for those");
  const auto* typeParam = llvm::dyn_cast<clang::TemplateTypeParmDecl>(primary->getTemplateParameters()->getParam(0));
  auto begin = edits_.written(sm_.getExpansionLoc(pattern->getBeginLoc())), end = edits_.written(pattern->getEndLoc());
  if (!typeParam || !begin || !end || sm_.getFileID(*begin) != sm_.getFileID(*end))
    return refuseClone("not written out in one file");
  if (!afterDefinition(param, pattern->getBeginLoc()))
    return refuseClone("defined before the definition of '" + param.planned->plan->name + "' ends");
  std::string file = edits_.filePath(*begin);
  unsigned from = sm_.getFileOffset(*begin), to = sm_.getFileOffset(*end) + edits_.tokenLength(*end);

  // Read the specialization as a plain function; the edits it makes inside the template's text
  // (and the accesses' field forms) belong to the clone, not to the template.
  std::map<std::string, std::pair<size_t, size_t>> before;  // edits and forms of each entity so far
  for (const auto& [key, e] : facts_.entities) before[key] = {e.edits.size(), e.forms.size()};
  cloning_ = spec;
  TraverseDecl(const_cast<clang::FunctionDecl*>(spec));
  cloning_ = nullptr;
  ComposedText clone;
  clone.file = file;
  clone.at = to;
  clone.from = from;
  clone.slice = edits_.fileData(*begin).substr(from, to - from).str();
  auto inside = [&](const Edit& e) { return e.file == file && e.offset >= from && e.offset + e.length <= to; };
  std::string otherStruct;  // a struct whose own edits would land in the overload
  for (auto& [key, e] : facts_.entities) {
    auto [edits, forms] = before.count(key) ? before[key] : std::pair<size_t, size_t>{0, 0};
    std::vector<Edit> keep(e.edits.begin(), e.edits.begin() + edits);
    for (auto it = e.edits.begin() + edits; it != e.edits.end(); ++it) {
      (inside(*it) ? clone.edits : keep).push_back(*it);
      if (inside(*it) && e.structName != param.planned->plan->name) otherStruct = e.structName;
    }
    e.edits = std::move(keep);
    std::vector<FieldForm> keepForms(e.forms.begin(), e.forms.begin() + forms);
    for (auto it = e.forms.begin() + forms; it != e.forms.end(); ++it)
      (llvm::all_of(it->kept, inside) ? clone.forms : keepForms).push_back(*it);
    e.forms = std::move(keepForms);
  }
  // The overload is written when this struct changes; the other struct's edits in it would hold
  // only if that one changes too.
  if (!otherStruct.empty())
    return refuseClone("that takes arrays of both '" + param.planned->plan->name + "' and '" + otherStruct +
                       "'; relayout does not combine two structs in one overload yet");
  // Every other use of the type parameter names the struct.
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  std::string type = clang::TypeName::getFullyQualifiedName(args->get(0).getAsType(), context_, policy);
  ParamUses uses(typeParam);
  uses.TraverseDecl(const_cast<clang::FunctionDecl*>(pattern));
  std::vector<Edit> edited = clone.edits;
  for (const FieldForm& form : clone.forms) {
    edited.insert(edited.end(), form.kept.begin(), form.kept.end());
    edited.insert(edited.end(), form.split.begin(), form.split.end());
  }
  for (clang::SourceLocation loc : uses.locs) {
    auto at = edits_.written(loc);
    if (!at) return refuseClone("whose type parameter is used inside a macro");
    unsigned offset = sm_.getFileOffset(*at);
    bool covered = llvm::any_of(edited, [&](const Edit& e) { return offset >= e.offset && offset < e.offset + e.length; });
    if (!covered) clone.edits.push_back(Edit{file, offset, edits_.tokenLength(*at), 0, type});
  }
  // The forms are chosen later (Rewriter.cpp); neither extreme may overlap.
  if (!composeText(clone, [](const std::string&) { return true; }) ||
      !composeText(clone, [](const std::string&) { return false; }))
    return refuseClone("whose rewritten text would overlap; relayout does not combine the edits");
  // A template may be defined in a header that several units include; its overload is a plain
  // function, so it must be inline to be defined in each of them as the template's instances are.
  const bool inlined = pattern->isInlineSpecified() || pattern->isConstexpr() ||
                       pattern->getStorageClass() == clang::SC_Static;
  clone.header = "\n\n// Generated by relayout: " + name + " for device arrays of " + type + " (" +
                 param.planned->layout->deviceName + "), from the template above.\n" + (inlined ? "" : "inline ");
  entity(param).clones.push_back(std::move(clone));
  cloneOwners_[spec] = param.key;
  return {};
}

// One clone serves every array that passes through the specialization (its parameters, its return
// value); where it is refused, each of them keeps the template's types, so each is refused (not only
// the first). The overload exists only for the new layout: each changes with the entity that writes it.
void UseCollector::passThroughClone(const clang::FunctionDecl* spec, const EntityInfo& info) {
  auto [clone, fresh] = cloned_.try_emplace(spec);
  if (fresh)
    clone->second = cloneSpecialization(spec, info);
  else if (!clone->second.empty())
    refuse(info, spec->getLocation(), clone->second, spec->getTemplateInstantiationPattern()->getSourceRange());
  auto owner = cloneOwners_.find(spec);
  if (owner != cloneOwners_.end() && owner->second != info.key) facts_.links.emplace_back(owner->second, info.key);
}

}  // namespace relayout::rw
