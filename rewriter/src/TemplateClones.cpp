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
      llvm::isa<clang::CXXMethodDecl>(callee))
    return false;
  const clang::FunctionDecl* pattern = callee->getTemplateInstantiationPattern();
  if (!pattern || !pattern->hasBody() || !callee->hasBody()) return false;
  // `f<T>(p)` considers only the template: an overload would never be called.
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
      !ref || ref->hasExplicitTemplateArgs())
    return false;
  bool any = false;
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
    EntityExpr arg = entityExpr(call->getArg(i));
    const EntityInfo* param = arg ? entityOf(callee->getParamDecl(i)) : nullptr;
    if (!param || param->planned != arg.info->planned) continue;  // left to describeUse
    any = true;
    if (cloned_.insert(callee).second) cloneSpecialization(callee, *param);
    std::vector<Edit> out;
    if (!rewriteEntityExpr(arg, out))
      refuse(*param, call->getArg(i)->getBeginLoc(), "this argument is not written out in the file (it comes from a "
             "macro body)", call->getArg(i)->getSourceRange());
    facts_.links.emplace_back(arg.info->key, param->key);
    addEdits(*param, out, arg.offset ? unsigned(kOffset) : 0u);
  }
  return any;
}

void UseCollector::cloneSpecialization(const clang::FunctionDecl* spec, const EntityInfo& param) {
  const clang::FunctionDecl* pattern = spec->getTemplateInstantiationPattern();
  const clang::FunctionTemplateDecl* primary = spec->getPrimaryTemplate();
  const clang::TemplateArgumentList* args = spec->getTemplateSpecializationArgs();
  std::string name = "'" + spec->getNameAsString() + "'";
  auto refuseClone = [&](const std::string& why) {
    refuse(param, spec->getLocation(), name + " is a template " + why, pattern->getSourceRange());
  };
  if (!primary || !args || args->size() != 1 || args->get(0).getKind() != clang::TemplateArgument::Type ||
      primary->getTemplateParameters()->size() != 1)
    return refuseClone("with other than one type parameter; relayout writes an overload only for those");
  const auto* typeParam = llvm::dyn_cast<clang::TemplateTypeParmDecl>(primary->getTemplateParameters()->getParam(0));
  auto begin = edits_.written(pattern->getBeginLoc()), end = edits_.written(pattern->getEndLoc());
  if (!typeParam || !begin || !end || sm_.getFileID(*begin) != sm_.getFileID(*end))
    return refuseClone("not written out in one file");
  if (!afterDefinition(param, pattern->getBeginLoc()))
    return refuseClone("defined before the definition of '" + param.planned->plan->name + "' ends");
  std::string file = edits_.filePath(*begin);
  unsigned from = sm_.getFileOffset(*begin), to = sm_.getFileOffset(*end) + edits_.tokenLength(*end);

  // Read the specialization as a plain function; the edits it makes inside the template's text
  // belong to the clone, not to the template.
  std::map<std::string, size_t> before;
  for (const auto& [key, e] : facts_.entities) before[key] = e.edits.size();
  cloning_ = spec;
  TraverseDecl(const_cast<clang::FunctionDecl*>(spec));
  cloning_ = nullptr;
  std::vector<Edit> inside;
  for (auto& [key, e] : facts_.entities) {
    auto first = e.edits.begin() + (before.count(key) ? before[key] : 0);
    std::vector<Edit> keep(e.edits.begin(), first);
    for (auto it = first; it != e.edits.end(); ++it)
      (it->file == file && it->offset >= from && it->offset + it->length <= to ? inside : keep).push_back(*it);
    e.edits = std::move(keep);
  }
  // Every other use of the type parameter names the struct.
  clang::PrintingPolicy policy = context_.getPrintingPolicy();
  policy.SuppressUnwrittenScope = true;
  std::string type = clang::TypeName::getFullyQualifiedName(args->get(0).getAsType(), context_, policy);
  ParamUses uses(typeParam);
  uses.TraverseDecl(const_cast<clang::FunctionDecl*>(pattern));
  std::vector<Edit> all = inside;
  for (clang::SourceLocation loc : uses.locs) {
    auto at = edits_.written(loc);
    if (!at) return refuseClone("whose type parameter is used inside a macro");
    unsigned offset = sm_.getFileOffset(*at);
    bool covered = llvm::any_of(inside, [&](const Edit& e) { return offset >= e.offset && offset < e.offset + e.length; });
    if (!covered) all.push_back(Edit{file, offset, edits_.tokenLength(*at), type});
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::string text = edits_.fileData(*begin).substr(from, to - from).str();
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].offset < all[i - 1].offset + all[i - 1].length)
      return refuseClone("whose rewritten text would overlap; relayout does not combine the edits");
  for (auto it = all.rbegin(); it != all.rend(); ++it) text.replace(it->offset - from, it->length, it->text);
  std::string header = "\n\n// Generated by relayout: " + name + " for device arrays of " + type + " (" +
                       param.planned->layout->deviceName + "), from the template above.\n";
  addEdits(param, {Edit{file, to, 0, header + text}});
}

}  // namespace relayout::rw
