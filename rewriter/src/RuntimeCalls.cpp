// The CUDA runtime's calls on arrays in the new layout: cudaMalloc, cudaMallocManaged,
// cudaMallocHost / cudaHostAlloc (pinned memory takes the device layout: kernels and async copies
// reach it directly), cudaFree(Host), cudaMemset, cudaMemcpy and cudaMemcpyAsync (whole arrays or
// slices `d + off`) become relayout's helpers with the same arguments, so the user's error checks stay
// around them; a cudaFree loop over `void*` casts of several arrays loses the entity to a
// statement of its own.
#include "UseCollector.h"
#include "relayout/clangsupport/References.h"

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

// What a runtime call's argument holds without its void-pointer cast: the entity's reference, or
// `p + off`.
static const clang::Expr* uncastInner(const clang::Expr* arg, const clang::Expr* ref, bool offset) {
  if (!offset) return ref;
  const clang::Expr* inner = arg->IgnoreParenImpCasts();
  if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(inner)) inner = cast->getSubExpr()->IgnoreParenImpCasts();
  return inner;
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
    if (!renameCall(call, helper, out) || !uncastArg(arg, uncastInner(arg, target.ref, target.offset), out) || !rewriteEntityExpr(target, out))
      return refuse(info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                    call->getSourceRange());
    addEdits(info, out, kind | (target.offset ? unsigned(kOffset) : 0u));
  };
  // Allocations whose arrays take the new layout: device memory, and the host-visible memory that
  // kernels and asynchronous copies reach directly (managed and pinned), which host code then
  // reads and writes through the same rewritten accesses.
  const unsigned args = call->getNumArgs();
  const char* allocHelper = nullptr;
  unsigned allocKind = 0;
  if (refuseByteCount(call, callee)) return true;
  if (refuseUnsupportedRuntimeCall(call, callee)) return true;
  if (isRuntimeCall(callee, "cudaMalloc") && args == 2) allocHelper = "relayoutMalloc", allocKind = kMalloc;
  else if (isRuntimeCall(callee, "cudaMallocAsync") && args == 3)
    allocHelper = "relayoutMallocAsync", allocKind = kMallocAsync;
  else if (isRuntimeCall(callee, "cudaMallocManaged") && (args == 2 || args == 3))
    allocHelper = "relayoutMallocManaged", allocKind = kMallocManaged;
  else if (isRuntimeCall(callee, "cudaMallocHost") && (args == 2 || args == 3))
    allocHelper = "relayoutMallocHost", allocKind = kMallocHost;
  else if (isRuntimeCall(callee, "cudaHostAlloc") && args == 3)
    allocHelper = "relayoutHostAlloc", allocKind = kHostAlloc;
  if (allocHelper) {
    const clang::Expr* arg = call->getArg(0)->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(arg)) arg = cast->getSubExpr()->IgnoreParenImpCasts();
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(arg);
    if (!address || address->getOpcode() != clang::UO_AddrOf) return true;
    const clang::Expr* ref = address->getSubExpr()->IgnoreParens();
    const EntityInfo* info = entityOfRef(ref);
    if (!info || !info->planned->layout) return true;
    consume(ref);
    entity(*info).seed = true;
    // The '&' stays: the helper fills the device struct through a pointer.
    std::vector<Edit> out;
    if (!afterDefinition(*info, call->getBeginLoc()))
      return refuse(*info, call->getBeginLoc(), "this call comes before the definition of '" + info->planned->plan->name +
                    "' ends, where its helpers are added", call->getSourceRange()), true;
    if (!renameCall(call, allocHelper, out) || !uncastArg(call->getArg(0), address, out))
      return refuse(*info, call->getBeginLoc(), "this call is not written out in the file (it comes from a macro body)",
                    call->getSourceRange()), true;
    addEdits(*info, out, allocKind);
    return true;
  }
  bool isFree = isRuntimeCall(callee, "cudaFree") && args == 1;
  bool isFreeHost = isRuntimeCall(callee, "cudaFreeHost") && args == 1;
  bool isMemset = isRuntimeCall(callee, "cudaMemset") && args == 3;
  bool isFreeAsync = isRuntimeCall(callee, "cudaFreeAsync") && args == 2;
  bool isMemsetAsync = isRuntimeCall(callee, "cudaMemsetAsync") && (args == 3 || args == 4);
  if (isFree || isFreeHost || isMemset || isFreeAsync || isMemsetAsync) {
    EntityExpr target = entityExpr(call->getArg(0), true);
    if (!target || !target.info->planned->layout) return true;
    bool isSet = isMemset || isMemsetAsync;
    if (!isSet && target.offset) return true;  // freeing `p + off` is an error already; left to describeUse
    if (isMemset) apply(target, "relayoutMemset", kMemset, call->getArg(0));
    else if (isMemsetAsync) apply(target, "relayoutMemsetAsync", kMemsetAsync, call->getArg(0));
    else if (isFreeAsync) apply(target, "relayoutFreeAsync", kFreeAsync, call->getArg(0));
    else apply(target, isFree ? "relayoutFree" : "relayoutFreeHost", isFree ? kFree : kFreeHost, call->getArg(0));
    return true;
  }
  bool async = isRuntimeCall(callee, "cudaMemcpyAsync") && (call->getNumArgs() == 4 || call->getNumArgs() == 5);
  if ((isRuntimeCall(callee, "cudaMemcpy") && call->getNumArgs() == 4) || async) {
    handleMemcpy(call, async);
    return true;
  }
  return false;
}

// cudaMemcpy(Async) with an entity on one side or both. Which edits hold depends on which sides
// change layout, known only for the whole program, so each is recorded under its condition:
// - both change (device, managed and pinned arrays share the layout): relayoutMemcpy(Async) array
//   by array, whatever the kind;
// - one changes and the other keeps the original struct (a host array from new[], malloc or a
//   std::vector's data(), or any S* expression): a gather (to the device) or scatter (to the host)
//   through one staging block, in the direction the kind names; cudaMemcpyAsync's staging block is
//   pageable, so the runtime has taken or delivered its data when each call returns (LayoutEmitter).
void UseCollector::handleMemcpy(const clang::CallExpr* call, bool async) {
  const clang::Expr* args[2] = {call->getArg(0), call->getArg(1)};
  EntityExpr sides[2] = {entityExpr(args[0], true), entityExpr(args[1], true)};
  if (!sides[0] && !sides[1]) return;
  for (const EntityExpr& e : sides)
    if (e) consume(e.ref);
  const auto* kindRef = llvm::dyn_cast<clang::DeclRefExpr>(call->getArg(3)->IgnoreParenImpCasts());
  llvm::StringRef kind = kindRef ? kindRef->getDecl()->getName() : "";
  const std::string kindText = edits_.text(call->getArg(3)->getSourceRange());
  bool toDevice = kind == "cudaMemcpyHostToDevice", toHost = kind == "cudaMemcpyDeviceToHost";
  const std::string callName = async ? "cudaMemcpyAsync" : "cudaMemcpy";
  bool sameStruct = sides[0] && sides[1] && sides[0].info->planned == sides[1].info->planned;
  // The user says both are device arrays: they change layout together.
  if (sameStruct && kind == "cudaMemcpyDeviceToDevice") facts_.links.emplace_back(sides[0].info->key, sides[1].info->key);

  std::vector<Edit> both;  // the array-by-array copy, when both sides change
  bool bothWritten = false;
  if (sameStruct) {
    bothWritten = renameCall(call, async ? "relayoutMemcpyAsync" : "relayoutMemcpy", both);
    for (int i = 0; i < 2 && bothWritten; ++i)
      bothWritten = uncastArg(args[i], uncastInner(args[i], sides[i].ref, sides[i].offset), both) &&
                    rewriteEntityExpr(sides[i], both);
  }
  const unsigned bothHelpers = (async ? unsigned(kSameLayoutCopyAsync) : unsigned(kSameLayoutCopy)) |
                               (sameStruct && (sides[0].offset || sides[1].offset) ? unsigned(kOffset) : 0u);
  const std::string macroBody = "this call is not written out in the file (it comes from a macro body)";

  for (int i = 0; i < 2; ++i) {
    const EntityExpr& self = sides[i];
    if (!self || !self.info->planned->layout) continue;
    const EntityInfo& info = *self.info;
    const std::string& structName = info.planned->plan->name;
    auto rendered = [&](clang::SourceLocation loc, const std::string& why, clang::SourceRange range) {
      return diags_.warning(loc, refusalPrefix(structName) + why, range);
    };
    if (!afterDefinition(info, call->getBeginLoc())) {
      refuse(info, call->getBeginLoc(), "this call comes before the definition of '" + structName + "' ends",
             call->getSourceRange());
      continue;
    }
    const EntityExpr& other = sides[1 - i];
    const clang::Expr* selfArg = args[i];
    const clang::Expr* otherArg = args[1 - i];
    std::string selfName = "'" + namedDecl(self.ref)->getNameAsString() + "'";
    if (sameStruct) {
      ConditionalUse c{other.info->key, true, {}, 0, {}};
      if (bothWritten) c.edits = both, c.helpers = bothHelpers;
      else c.refusals.push_back(rendered(call->getBeginLoc(), macroBody, call->getSourceRange()));
      entity(info).conditionals.push_back(std::move(c));
    }

    // This side changes, the other keeps the original struct.
    std::string why;
    clang::SourceLocation whyLoc = call->getBeginLoc();
    clang::SourceRange whyRange = call->getSourceRange();
    std::vector<Edit> gather;
    bool selfIsDevice = i == 0 ? toDevice : toHost;
    const clang::Expr* hostExpr = otherArg->IgnoreParenImpCasts();
    if (const auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(hostExpr); cast && cast->getType()->isVoidPointerType())
      hostExpr = cast->getSubExpr()->IgnoreParenImpCasts();
    std::string otherText = edits_.text(otherArg->getSourceRange());
    if (!toDevice && !toHost) {
      why = callName + " with kind '" + kindText + "' between " + selfName + " and '" + otherText + "', which keeps "
            "the original layout (only cudaMemcpyHostToDevice and cudaMemcpyDeviceToHost gather or scatter the fields)";
    } else if (!selfIsDevice) {
      why = selfName + " is the host side of this " + callName + " but changes layout, while the device side '" +
            otherText + "' keeps the original one";
    } else {
      // A host pointer, or a host array of fixed size (`S h[MAX]`), which decays to one.
      clang::QualType hostType = hostExpr->getType(), hostElement;
      if (hostType->isPointerType()) hostElement = hostType->getPointeeType();
      else if (const clang::ConstantArrayType* array = context_.getAsConstantArrayType(hostType))
        hostElement = array->getElementType();
      const clang::RecordDecl* hostRecord = hostElement.isNull() ? nullptr : hostElement->getAsRecordDecl();
      if (!hostRecord || structs_.planned(hostRecord) != info.planned || (toHost && hostElement.isConstQualified())) {
        const std::string& base = info.planned->layout->baseName;
        why = "this cudaMemcpy's host side '" + otherText + "' is not a " + (toHost ? "" : "(const) ") + base +
              "* or an array of " + base + ", so the copy cannot gather or scatter " + structName + "'s fields";
        whyLoc = otherArg->getBeginLoc(), whyRange = otherArg->getSourceRange();
      } else if (!renameCall(call, async ? "relayoutMemcpyAsync" : "relayoutMemcpy", gather) ||
                 !uncastArg(selfArg, uncastInner(selfArg, self.ref, self.offset), gather) ||
                 !uncastArg(otherArg, hostExpr, gather) || !rewriteEntityExpr(self, gather)) {
        why = macroBody;
      }
    }
    ConditionalUse c{sameStruct ? other.info->key : std::string(), false, {}, 0, {}};
    unsigned copyHelper = async ? (toDevice ? kToDeviceAsync : kToHostAsync) : (toDevice ? kToDevice : kToHost);
    if (why.empty()) c.edits = std::move(gather), c.helpers = copyHelper | (self.offset ? unsigned(kOffset) : 0u);
    else c.refusals.push_back(rendered(whyLoc, why, whyRange));
    if (sameStruct) {
      entity(info).conditionals.push_back(std::move(c));
    } else {
      Entity& e = entity(info);
      e.edits.insert(e.edits.end(), c.edits.begin(), c.edits.end());
      e.helpers |= c.helpers;
      e.refusals.insert(e.refusals.end(), c.refusals.begin(), c.refusals.end());
    }
  }
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

void findCalls(const clang::Stmt* stmt, std::vector<const clang::CallExpr*>& calls) {
  if (!stmt) return;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) calls.push_back(call);
  for (const clang::Stmt* child : stmt->children()) findCalls(child, calls);
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
  const std::vector<const clang::DeclRefExpr*> uses = referencesTo(loop->getBody(), var);
  std::vector<const clang::CallExpr*> calls;
  findCalls(loop->getBody(), calls);
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
