// The CUDA runtime's calls on device arrays: cudaMalloc, cudaFree, cudaMemset, cudaMemcpy and
// cudaMemcpyAsync (host <-> device with a host S*, or device <-> device, whole arrays or slices
// `d + off`) become relayout's helpers with the same arguments, so the user's error checks stay
// around them; a cudaFree loop over `void*` casts of several arrays loses the entity to a
// statement of its own.
#include "UseCollector.h"

#include <clang/AST/ExprCXX.h>

namespace relayout::rw {

bool UseCollector::isRuntimeCall(const clang::FunctionDecl* callee, llvm::StringRef name) const {
  return callee->getIdentifier() && callee->getName() == name && sm_.isInSystemHeader(callee->getLocation());
}

bool UseCollector::renameCall(const clang::CallExpr* call, const std::string& helper, std::vector<Edit>& out) {
  const clang::Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  return edits_.replaceTokens(callee->getSourceRange(), helper, out);
}

// Drops an explicit cast around `inner` (`(void**)&d`, `(void*)(d + off)`): only the cast's own
// tokens go, so edits inside `inner` still apply.
bool UseCollector::uncastArg(const clang::Expr* arg, const clang::Expr* inner, std::vector<Edit>& out) {
  const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg->IgnoreParenImpCasts());
  if (!cast) return true;
  auto castBegin = edits_.written(cast->getBeginLoc()), castEnd = edits_.written(cast->getEndLoc());
  auto innerBegin = edits_.written(inner->getBeginLoc()), innerEnd = edits_.written(inner->getEndLoc());
  if (!castBegin || !castEnd || !innerBegin || !innerEnd) return false;
  clang::SourceLocation afterInner = innerEnd->getLocWithOffset(edits_.tokenLength(*innerEnd));
  clang::SourceLocation afterCast = castEnd->getLocWithOffset(edits_.tokenLength(*castEnd));
  auto head = edits_.between(*castBegin, *innerBegin), tail = edits_.between(afterInner, afterCast);
  if (!head || !tail) return false;
  if (!head->empty()) out.push_back(edits_.rawEdit(*castBegin, head->size(), ""));
  if (!tail->empty()) out.push_back(edits_.rawEdit(afterInner, tail->size(), ""));
  return true;
}

bool UseCollector::handleRuntimeCall(const clang::CallExpr* call, const clang::FunctionDecl* callee) {
  // Renames the call to the helper, drops a void-pointer cast around `arg` and rewrites `p + off`.
  auto apply = [&](const EntityExpr& target, const char* helper, unsigned kind, const clang::Expr* arg) {
    const EntityInfo& info = *target.info;
    std::vector<Edit> out;
    consume(target.ref);
    if (!afterDefinition(info, call->getBeginLoc()))
      return refuse(info, call->getBeginLoc(), "this call comes before the definition of '" + info.planned->plan->name +
                    "' ends, where its helpers are added", call->getSourceRange());
    const clang::Expr* inner = target.offset ? arg->IgnoreParenImpCasts() : target.ref;
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(inner); cast && target.offset)
      inner = cast->getSubExpr()->IgnoreParenImpCasts();
    if (!renameCall(call, helper, out) || !uncastArg(arg, inner, out) || !rewriteEntityExpr(target, out))
      return refuse(info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                    call->getSourceRange());
    addEdits(info, out, kind | (target.offset ? unsigned(kOffset) : 0u));
  };
  // cudaMallocManaged: the arrays are managed too, so host code reaches them through the same
  // rewritten accesses. (cudaMallocHost allocates a host array, which keeps the original layout.)
  bool managed = isRuntimeCall(callee, "cudaMallocManaged") && (call->getNumArgs() == 2 || call->getNumArgs() == 3);
  if ((isRuntimeCall(callee, "cudaMalloc") && call->getNumArgs() == 2) || managed) {
    const clang::Expr* arg = call->getArg(0)->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg)) arg = cast->getSubExpr()->IgnoreParenImpCasts();
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(arg);
    if (!address || address->getOpcode() != clang::UO_AddrOf) return true;
    const clang::Expr* ref = address->getSubExpr()->IgnoreParens();
    const EntityInfo* info = entityOfRef(ref);
    if (!info || !info->planned->layout) return true;
    consume(ref);
    entity(*info).seed = true;
    // The '&' stays: relayoutMalloc fills the device struct through a pointer.
    std::vector<Edit> out;
    if (!afterDefinition(*info, call->getBeginLoc()))
      return refuse(*info, call->getBeginLoc(), "this call comes before the definition of '" + info->planned->plan->name +
                    "' ends, where its helpers are added", call->getSourceRange()), true;
    if (!renameCall(call, managed ? "relayoutMallocManaged" : "relayoutMalloc", out) ||
        !uncastArg(call->getArg(0), address, out))
      return refuse(*info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                    call->getSourceRange()), true;
    addEdits(*info, out, managed ? unsigned(kMallocManaged) : unsigned(kMalloc));
    return true;
  }
  bool isFree = isRuntimeCall(callee, "cudaFree") && call->getNumArgs() == 1;
  bool isMemset = isRuntimeCall(callee, "cudaMemset") && call->getNumArgs() == 3;
  if (isFree || isMemset) {
    EntityExpr target = entityExpr(call->getArg(0), true);
    if (!target || !target.info->planned->layout) return true;
    if (isFree && target.offset) return true;  // cudaFree(p + off) is an error already; left to describeUse
    apply(target, isFree ? "relayoutFree" : "relayoutMemset", isFree ? kFree : kMemset, call->getArg(0));
    return true;
  }
  bool async = isRuntimeCall(callee, "cudaMemcpyAsync") && (call->getNumArgs() == 4 || call->getNumArgs() == 5);
  if ((isRuntimeCall(callee, "cudaMemcpy") && call->getNumArgs() == 4) || async) {
    handleMemcpy(call, async);
    return true;
  }
  return false;
}

// cudaMemcpy between a host S* (AoS, unchanged) and a device entity, in the direction its kind
// names; the host side must have type S* so the helper's gather/scatter is well-typed. Between two
// device entities (cudaMemcpyDeviceToDevice) the copy goes array by array, also asynchronously.
void UseCollector::handleMemcpy(const clang::CallExpr* call, bool async) {
  EntityExpr dst = entityExpr(call->getArg(0), true), src = entityExpr(call->getArg(1), true);
  if (!dst && !src) return;
  const auto* kindRef = llvm::dyn_cast<clang::DeclRefExpr>(call->getArg(3)->IgnoreParenImpCasts());
  llvm::StringRef kind = kindRef ? kindRef->getDecl()->getName() : "";
  bool toDevice = kind == "cudaMemcpyHostToDevice", toHost = kind == "cudaMemcpyDeviceToHost";
  const char* name = async ? "cudaMemcpyAsync" : "cudaMemcpy";
  auto refuseBoth = [&](const std::string& why) {
    for (const EntityExpr* e : {&dst, &src})
      if (*e) {
        consume(e->ref);
        refuse(*e->info, call->getBeginLoc(), why, call->getSourceRange());
      }
  };
  if (kind == "cudaMemcpyDeviceToDevice" && dst && src && dst.info->planned == src.info->planned) {
    const EntityInfo& info = *dst.info;
    std::vector<Edit> out;
    if (!afterDefinition(info, call->getBeginLoc()))
      return refuseBoth("this call comes before the definition of '" + info.planned->plan->name + "' ends");
    if (!renameCall(call, async ? "relayoutMemcpyAsync" : "relayoutMemcpy", out) ||
        !uncastArg(call->getArg(0), dst.offset ? call->getArg(0)->IgnoreParenImpCasts() : dst.ref, out) ||
        !uncastArg(call->getArg(1), src.offset ? call->getArg(1)->IgnoreParenImpCasts() : src.ref, out) ||
        !rewriteEntityExpr(dst, out) || !rewriteEntityExpr(src, out))
      return refuseBoth("this call is not written out in the file (it comes from a macro body)");
    facts_.links.emplace_back(dst.info->key, src.info->key);  // both are device arrays
    addEdits(info, out, (async ? unsigned(kDeviceToDeviceAsync) : unsigned(kDeviceToDevice)) | (dst.offset || src.offset ? unsigned(kOffset) : 0u));
    return;
  }
  if (!toDevice && !toHost)
    return refuseBoth(std::string(name) + " with kind '" + edits_.text(call->getArg(3)->getSourceRange()) +
                      "' (only cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost and cudaMemcpyDeviceToDevice between "
                      "two arrays of one struct are handled)");
  if (async)
    return refuseBoth("cudaMemcpyAsync between host and device arrays (the gather or scatter of the fields would need "
                      "a staging block that lives until the copy ends; not handled yet)");
  EntityExpr device = toDevice ? dst : src, host = toDevice ? src : dst;
  const clang::Expr* deviceArg = call->getArg(toDevice ? 0 : 1);
  const clang::Expr* hostArg = call->getArg(toDevice ? 1 : 0);
  if (host) {  // fine while it stays a host array
    consume(host.ref);
    refuse(*host.info, hostArg->getBeginLoc(), "'" + namedDecl(host.ref)->getNameAsString() +
           "' is the host side of this cudaMemcpy, so it must keep the original layout", call->getSourceRange());
  }
  if (!device) return;
  consume(device.ref);
  if (!device.info->planned->layout) return;
  const PlannedStruct& planned = *device.info->planned;
  const std::string& structName = planned.plan->name;
  const clang::Expr* hostExpr = hostArg->IgnoreParenImpCasts();
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(hostExpr); cast && cast->getType()->isVoidPointerType())
    hostExpr = cast->getSubExpr()->IgnoreParenImpCasts();
  clang::QualType hostType = hostExpr->getType();
  const clang::RecordDecl* hostRecord =
      hostType->isPointerType() ? hostType->getPointeeType()->getAsRecordDecl() : nullptr;
  if (!hostRecord || structs_.planned(hostRecord) != &planned ||
      (toHost && hostType->getPointeeType().isConstQualified()))
    return refuse(*device.info, hostArg->getBeginLoc(), "this cudaMemcpy's host side '" +
                  edits_.text(hostArg->getSourceRange()) + "' is not a " + (toHost ? "" : "(const) ") +
                  planned.layout->baseName + "*, so the copy cannot gather or scatter " + structName + "'s fields",
                  hostArg->getSourceRange());
  std::vector<Edit> out;
  if (!afterDefinition(*device.info, call->getBeginLoc()))
    return refuse(*device.info, call->getBeginLoc(), "this call comes before the definition of '" + structName + "' ends",
                  call->getSourceRange());
  if (!renameCall(call, "relayoutMemcpy", out) ||
      !uncastArg(deviceArg, device.offset ? deviceArg->IgnoreParenImpCasts() : device.ref, out) ||
      !uncastArg(hostArg, hostExpr, out) || !rewriteEntityExpr(device, out))
    return refuse(*device.info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro "
                  "body)", call->getSourceRange());
  addEdits(*device.info, out, (toDevice ? unsigned(kToDevice) : unsigned(kToHost)) | (device.offset ? unsigned(kOffset) : 0u));
}

namespace {

const clang::InitListExpr* initializerList(const clang::Expr* expr) {
  for (;;) {
    if (!expr) return nullptr;
    if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(expr)) return list;
    if (const auto* e = llvm::dyn_cast<clang::ExprWithCleanups>(expr)) expr = e->getSubExpr();
    else if (const auto* m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(expr)) expr = m->getSubExpr();
    else if (const auto* l = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(expr)) expr = l->getSubExpr();
    else if (const auto* c = llvm::dyn_cast<clang::ImplicitCastExpr>(expr)) expr = c->getSubExpr();
    else return nullptr;
  }
}

void findRefs(const clang::Stmt* stmt, const clang::VarDecl* var, std::vector<const clang::DeclRefExpr*>& refs,
              std::vector<const clang::CallExpr*>& calls) {
  if (!stmt) return;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(stmt); ref && ref->getDecl() == var) refs.push_back(ref);
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) calls.push_back(call);
  for (const clang::Stmt* child : stmt->children()) findRefs(child, var, refs, calls);
}

}  // namespace

bool UseCollector::VisitCXXForRangeStmt(clang::CXXForRangeStmt* loop) {
  handleFreeLoop(loop);
  return true;
}

// `for (void* a : {(void*)d, (void*)other, ...}) CHECK(cudaFree(a));` frees device arrays of any
// type through one loop: the entity leaves the list and gets its own statement before the loop,
// `CHECK(relayoutFree(d));`, the loop's body with the variable replaced.
bool UseCollector::handleFreeLoop(const clang::CXXForRangeStmt* loop) {
  const clang::InitListExpr* list = initializerList(loop->getRangeInit());
  const clang::VarDecl* var = loop->getLoopVariable();
  if (!list || !var || !var->getType()->isVoidPointerType()) return false;
  std::vector<const clang::DeclRefExpr*> uses;
  std::vector<const clang::CallExpr*> calls;
  findRefs(loop->getBody(), var, uses, calls);
  const clang::CallExpr* free = nullptr;
  for (const clang::CallExpr* call : calls)
    if (const clang::FunctionDecl* callee = call->getDirectCallee();
        callee && isRuntimeCall(callee, "cudaFree") && call->getNumArgs() == 1)
      free = call;
  const clang::Stmt* body = loop->getBody();
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body); block && block->size() == 1) body = block->body_front();
  bool simple = free && list->getNumInits() > 1 && uses.size() == 1 && uses[0] == free->getArg(0)->IgnoreParenImpCasts() &&
                !llvm::isa<clang::CompoundStmt>(body);
  for (unsigned i = 0; i < list->getNumInits(); ++i) {
    EntityExpr element = entityExpr(list->getInit(i), true);
    if (!element || element.offset || !element.info->planned->layout) continue;
    const EntityInfo& info = *element.info;
    auto refuseHere = [&](const std::string& why) {
      consume(element.ref);
      refuse(info, list->getInit(i)->getBeginLoc(), why, loop->getSourceRange());
    };
    if (!simple) {
      refuseHere("'" + namedDecl(element.ref)->getNameAsString() + "' is cast to 'void*' in the list of a loop that "
                 "does more than 'cudaFree' its variable");
      continue;
    }
    // The body's text, as written (a macro call stays one), with the variable and cudaFree replaced.
    clang::CharSourceRange bodyRange = sm_.getExpansionRange(body->getSourceRange());
    auto bodyBegin = edits_.written(bodyRange.getBegin()), bodyEnd = edits_.written(bodyRange.getEnd());
    auto useLoc = edits_.written(uses[0]->getLocation());
    auto freeLoc = edits_.written(free->getCallee()->IgnoreParenImpCasts()->getBeginLoc());
    auto forLoc = edits_.written(loop->getForLoc());
    auto elementEnd = edits_.written(list->getInit(i)->getEndLoc());
    auto elementBegin = edits_.written(list->getInit(i)->getBeginLoc());
    std::string refText = edits_.text(element.ref->getSourceRange());
    if (!bodyBegin || !bodyEnd || !useLoc || !freeLoc || !forLoc || !elementBegin || !elementEnd || refText.empty() ||
        !afterDefinition(info, loop->getBeginLoc())) {
      refuseHere("'" + namedDecl(element.ref)->getNameAsString() + "' is freed by a loop relayout cannot rewrite here");
      continue;
    }
    unsigned begin = sm_.getFileOffset(*bodyBegin);
    std::string text = edits_.between(*bodyBegin, bodyEnd->getLocWithOffset(edits_.tokenLength(*bodyEnd)))->str();
    llvm::StringRef rest = edits_.fileData(*bodyEnd).substr(sm_.getFileOffset(*bodyEnd) + edits_.tokenLength(*bodyEnd));
    if (rest.ltrim(" \t").starts_with(";")) text += ";";
    unsigned useAt = sm_.getFileOffset(*useLoc) - begin, freeAt = sm_.getFileOffset(*freeLoc) - begin;
    text.replace(useAt, edits_.tokenLength(*useLoc), refText);
    text.replace(freeAt, edits_.tokenLength(*freeLoc), "relayoutFree");
    llvm::StringRef data = edits_.fileData(*forLoc);
    unsigned forAt = sm_.getFileOffset(*forLoc), lineStart = forAt;
    while (lineStart > 0 && data[lineStart - 1] != '\n') --lineStart;
    std::string indent = data.substr(lineStart, forAt - lineStart).str();
    if (llvm::StringRef(indent).trim().size() != 0) indent = " ";
    std::vector<Edit> out;
    out.push_back(edits_.rawEdit(*forLoc, 0, text + (indent == " " ? " " : "\n" + indent)));
    // The element and the comma after it (or, the last one, the comma before it).
    unsigned from = sm_.getFileOffset(*elementBegin);
    unsigned to = sm_.getFileOffset(*elementEnd) + edits_.tokenLength(*elementEnd);
    if (i + 1 < list->getNumInits()) {
      auto next = edits_.written(list->getInit(i + 1)->getBeginLoc());
      if (!next) { refuseHere("the list of this loop is not written out in the file"); continue; }
      to = sm_.getFileOffset(*next);
    } else if (i > 0) {
      auto previous = edits_.written(list->getInit(i - 1)->getEndLoc());
      if (!previous) { refuseHere("the list of this loop is not written out in the file"); continue; }
      from = sm_.getFileOffset(*previous) + edits_.tokenLength(*previous);
    }
    out.push_back(edits_.rawEdit(elementBegin->getLocWithOffset(int(from) - int(sm_.getFileOffset(*elementBegin))),
                                 to - from, ""));
    consume(element.ref);
    addEdits(info, out, kFree);
  }
  return true;
}

}  // namespace relayout::rw
