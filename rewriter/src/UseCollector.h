// Reads one translation unit for the whole-program decision: every variable and parameter of type
// S* (S planned as SoA or clusters) is an entity; each of its uses is either a form this version
// rewrites (recorded as edits) or a refusal (a rendered warning that keeps S unchanged if the
// entity turns out to hold a device array). Calls that pass an entity to an S* parameter link the
// two: they change layout together or not at all.
#pragma once

#include "Diagnostics.h"
#include "Facts.h"
#include "SourceEdits.h"
#include "StructScanner.h"
#include "relayout/clangsupport/DeviceConditionals.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <map>
#include <optional>
#include <set>
#include <variant>
#include <vector>

namespace relayout::rw {

// What an expression does with an object it names (UseCollector::fieldUse).
enum class FieldUse { kRead, kWrite, kAddress };

class UseCollector : public clang::RecursiveASTVisitor<UseCollector> {
 public:
  UseCollector(clang::ASTContext& context, StructScanner& structs, SourceEdits& edits, DiagRenderer& diags,
               ProgramFacts& facts, const DeviceConditionals& device)
      : context_(context),
        sm_(context.getSourceManager()),
        structs_(structs),
        edits_(edits),
        diags_(diags),
        facts_(facts),
        device_(device) {}

  void collect();

  // The visitor's hooks.
  bool TraverseDecl(clang::Decl* decl);
  bool VisitVarDecl(clang::VarDecl* var);
  bool VisitFieldDecl(clang::FieldDecl* field);
  bool VisitBinaryOperator(clang::BinaryOperator* binary);
  bool VisitCXXConstructorDecl(clang::CXXConstructorDecl* ctor);
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt* loop);
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* subscript);
  bool VisitUnaryOperator(clang::UnaryOperator* unary);
  bool VisitInitListExpr(clang::InitListExpr* list);
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construct);
  bool VisitMemberExpr(clang::MemberExpr* member);
  bool VisitCallExpr(clang::CallExpr* call);
  bool VisitUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* expr);
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref);
  bool VisitUnresolvedLookupExpr(clang::UnresolvedLookupExpr* lookup);
  bool VisitFunctionDecl(clang::FunctionDecl* function);
  bool VisitReturnStmt(clang::ReturnStmt* ret);
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* cast);
  bool TraverseFunctionTemplateDecl(clang::FunctionTemplateDecl* tmpl);

 private:
  struct EntityInfo {
    std::string key;
    const PlannedStruct* planned = nullptr;
  };

  // An expression that yields an entity's pointer: the entity itself (`ref`), or it moved by
  // `offset` elements (`p + off` or `&p[off]`, both rewritten as `relayoutOffset(p, off)`).
  struct EntityExpr {
    const clang::Expr* ref = nullptr;  // DeclRefExpr, or MemberExpr naming an entity member
    const EntityInfo* info = nullptr;
    const clang::Expr* offset = nullptr;
    const clang::UnaryOperator* addressOf = nullptr;  // `&p[off]`
    explicit operator bool() const { return info != nullptr; }
  };

  // --- UseCollector.cpp: entities and the uses this version rewrites ---
  const EntityInfo* entityOf(const clang::ValueDecl* decl);
  // The variable, parameter or member a reference names (DeclRefExpr or MemberExpr), or the
  // function a call to it names (its value is an entity, ReturnedArrays.cpp); else null.
  static const clang::ValueDecl* namedDecl(const clang::Expr* ref);
  const EntityInfo* entityOfRef(const clang::Expr* ref);
  // The entity an expression names, through parens and lvalue/qualification conversions only.
  const clang::Expr* directRef(const clang::Expr* expr);
  // The same, also through conversions and one explicit cast to a void pointer (runtime API args).
  const clang::Expr* runtimeArgRef(const clang::Expr* expr);
  EntityExpr entityExpr(const clang::Expr* expr, bool runtimeArg = false);
  // Consumes the entity expression's reference and rewrites `p + off`; false (nothing recorded)
  // when its tokens are not written in the file.
  bool rewriteEntityExpr(const EntityExpr& e, std::vector<Edit>& out);
  void addEdits(const EntityInfo& info, const std::vector<Edit>& out, unsigned helpers = 0);
  // A value stored into `target` (an initializer, a member of an aggregate initializer, a returned
  // value): a null pointer becomes `{}`; another array of the struct (or `q + off`) stays itself (or
  // `relayoutOffset(q, off)`) and is linked to the target. Anything else is `kOther`.
  enum class Stored { kDone, kOther, kBeforeDefinition, kInMacro };
  Stored storeValue(const clang::Expr* value, const EntityInfo& target, std::vector<Edit>& out);
  void consume(const clang::Expr* ref) { consumed_.insert(ref); }
  Entity& entity(const EntityInfo& info) { return facts_.entities[info.key]; }
  void refuse(const EntityInfo& info, clang::SourceLocation loc, const std::string& why, clang::SourceRange range);
  // The same for a value relayout does not follow (Entity::unfollowedValue), which also says where
  // the struct's device array may come from when none is found.
  void refuseUnfollowedValue(const EntityInfo& info, clang::SourceLocation loc, const std::string& why,
                             clang::SourceRange range);
  bool isRuntimeCall(const clang::FunctionDecl* callee, llvm::StringRef name) const;
  bool handleRuntimeCall(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  void handleMemcpy(const clang::CallExpr* call, bool async);
  // --- ByteCounts.cpp: runtime calls whose byte count is not a whole number of elements, and
  // calls with no rewritten form (pitched allocations, 2D/3D copies): refused with the reason ---
  bool refuseByteCount(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  bool refuseUnsupportedRuntimeCall(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  bool handleFreeLoop(const clang::CXXForRangeStmt* loop);
  void handleUserCall(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  // Records `callee` as called with pointers that keep their layout (DualUseFunctions.cpp);
  // why it cannot be, as the end of a refusal.
  std::optional<std::string> keepForOtherCallers(const clang::FunctionDecl* callee, const EntityInfo& param);
  std::variant<DualUseFunction, std::string> overloadPlace(const clang::FunctionDecl* callee, const EntityInfo& param);
  void noteArrayCall(const clang::CallExpr* call, const clang::FunctionDecl* callee, const EntityInfo& param);
  bool handleSwap(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  // --- UntypedBuffers.cpp: `char* buf` allocated with cudaMalloc and cast to S* at a launch ---
  bool handleBufferCast(const clang::Expr* arg, const EntityInfo& param);
  // --- TemplateClones.cpp: a device array passed to a function template gets a non-template
  // overload of it for the device struct, right after the template ---
  bool handleTemplateCall(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  // The refusal of the clone, empty where it was written.
  std::string cloneSpecialization(const clang::FunctionDecl* spec, const EntityInfo& param);
  // `info` passes through the specialization `spec`: its overload is written once (or its refusal
  // recorded on `info`), and `info` changes together with the entity that writes it.
  void passThroughClone(const clang::FunctionDecl* spec, const EntityInfo& info);
  // Replaces the callee's name with the helper's, and a void-pointer cast around `arg` by `arg`.
  bool renameCall(const clang::CallExpr* call, const std::string& helper, std::vector<Edit>& out);
  bool uncastArg(const clang::Expr* arg, const clang::Expr* inner, std::vector<Edit>& out);
  bool afterDefinition(const EntityInfo& info, clang::SourceLocation loc) const;

  // --- TemplateInstances.cpp: function templates naming the struct directly (`Atom* atoms` in a
  // kernel templated on precision) are read through their instances and rewritten in their text ---
  // Whether `tmpl` is read so: it is defined, instantiated, and no instance gets the struct
  // through a type parameter.
  bool readsInstances(const clang::FunctionTemplateDecl* tmpl);
  // The template `function` is the pattern or an instance of, when it is read so; else null.
  const clang::FunctionTemplateDecl* rewrittenTemplate(const clang::FunctionDecl* function);
  // One key for a parameter or local of such a template, shared by its pattern and instances.
  std::optional<std::string> instanceKey(const clang::VarDecl* var);
  // The function whose text the declarations being read belong to, when not the unit's own.
  const clang::FunctionDecl* reading() const { return cloning_ ? cloning_ : instance_; }

  // --- ReturnedArrays.cpp: a function's return value as an entity (`S* f()`, `return p;`) ---
  const EntityInfo* returnEntityOf(const clang::FunctionDecl* function);
  void declareReturn(const clang::FunctionDecl* function, const EntityInfo& info);
  // The function whose body holds `stmt`; null inside a lambda or block.
  const clang::FunctionDecl* enclosingFunction(const clang::Stmt* stmt);
  // A call whose value is an entity: recorded as a use of it; a template's specialization is cloned.
  void noteReturningCall(const clang::CallExpr* call, const clang::FunctionDecl* callee);

  // --- NullTests.cpp: `!p`, `if (p)`, `p == nullptr` test the device struct's first array ---
  // False when `pointer` is not an entity (nothing recorded).
  bool rewriteNullTest(const clang::Expr* pointer, const clang::Stmt* test);
  bool rewriteNullComparison(const clang::BinaryOperator* binary);

  // --- DeclEdits.cpp: declarations of entities, and whole-unit checks ---
  void declareEntity(const clang::DeclaratorDecl* var, const EntityInfo& info);
  std::optional<std::string> typeEdits(const clang::DeclaratorDecl* var, const EntityInfo& info,
                                       std::vector<Edit>& out);
  // The initializer of an entity: a null pointer (-> '{}') or an entity expression (linked).
  std::optional<std::string> initEdits(const clang::DeclaratorDecl* var, const EntityInfo& info,
                                       std::vector<Edit>& out);
  void checkDeclarationGroups();
  void checkFunctionReferences();
  void checkOverloadCalls();
  void refuseUnconsumed();
  // --- WholeElements.cpp: `P q = p[i]` (gather) and `p[i] = q;` (scatter) ---
  // A whole element of an entity: `p[i]`, or `*p`, the element at index 0.
  struct ElementExpr {
    const clang::Expr* expr = nullptr;   // the subscript or the dereference
    const clang::Expr* base = nullptr;   // p
    const clang::Expr* index = nullptr;  // i; null for `*p`
    static ElementExpr of(const clang::ArraySubscriptExpr* subscript) {
      return {subscript, subscript->getBase(), subscript->getIdx()};
    }
    // Reached through a `const S*`: in the new layout, through the read-only view.
    bool readOnly() const {
      clang::QualType type = base->getType();
      return type->isPointerType() && type->getPointeeType().isConstQualified();
    }
  };
  const clang::Stmt* parentOf(const clang::Stmt* node);
  bool rewriteWholeElement(const ElementExpr& element, const clang::Expr* ref, const EntityInfo& info);
  // `p[i].m(args);` as a statement, m non-const: a gathered copy is called, then scattered back.
  // `helpers` receives what the block calls (kLoad with kStore, or kRef when it scatters some fields).
  bool rewriteElementUpdate(const ElementExpr& element, const clang::CXXMemberCallExpr* call, const EntityInfo& info,
                            std::vector<Edit>& out, unsigned& helpers);
  // `p->m(args)`, p an entity: called on element 0, as `p[0].m(args)` is (a const member function on
  // a gathered copy; a non-const one as a statement, on a copy scattered back). False when not.
  bool rewriteArrowCall(const clang::MemberExpr* member, const clang::Expr* ref, const EntityInfo& info);
  // True when `expr` is a whole statement of a block or the body of an if, for, while or do.
  bool isStatement(const clang::Expr* expr);
  // `object.m(args);` -> `{ <before>relayoutElement.m(args); <after> }`: the call runs on a local
  // copy named relayoutElement, in a block that takes the statement's place (semicolon included).
  // `std::copy(first, last, p);` into an array in the new layout (managed or pinned, so the host
  // writes it): `relayoutStoreRange(first, last, p);` scatters each element.
  bool handleCopyInto(const clang::CallExpr* call, const clang::FunctionDecl* callee);
  bool callOnElementCopy(const clang::CXXMemberCallExpr* call, const clang::Expr* object, const std::string& before,
                         const std::string& after, std::vector<Edit>& out);
  // What scatters the copy back after `relayoutElement.m(args);` when m cannot write every field:
  // one assignment per field it can write, to `target(field)` (`e.x_` for a proxy,
  // `relayoutRef(p, i).x_`), none when it writes no field. Nullopt when m may write every field, or
  // which it writes cannot be told (clangsupport/MethodWrites.h): the caller scatters the whole copy.
  std::optional<std::string> partialWriteBack(const clang::CXXMemberCallExpr* call, const EntityInfo& info,
                                              llvm::function_ref<std::string(const std::string&)> target);
  // `p[i]` -> `helper(p, i)`, `*p` -> `helper(p, 0)`; false (nothing recorded) when its tokens are
  // not written in the file.
  bool elementCall(const ElementExpr& element, const std::string& helper, std::vector<Edit>& out);
  // The element's index as written ("0" for `*p`); empty when it is not written in the file.
  std::string indexText(const ElementExpr& element);
  // --- ElementRefs.cpp: an element bound to a non-const reference (`S& e = p[i]`, `f(p[i])` with
  // `f(S&)`) becomes `relayoutRef(p, i)`, a struct of references to its fields ---
  // Why `p[i]`, used by `parent`, cannot be a reference proxy; empty when it was rewritten as one,
  // `byRow` then saying whether it calls relayoutRef's by-row overload (indexByRow).
  std::optional<std::pair<std::string, clang::SourceRange>> rewriteElementRef(const ElementExpr& element,
                                                                              const clang::Stmt* parent,
                                                                              const clang::Decl* parentDecl,
                                                                              const EntityInfo& info,
                                                                              std::vector<Edit>& out, bool& byRow);
  // The overload of `function` whose non-const S& parameters are reference proxies, written once
  // after its definition; why not, when it cannot be.
  std::optional<std::string> cloneForElementRefs(const clang::FunctionDecl* function, const EntityInfo& info,
                                                 std::vector<Edit>& out);
  // Why a reference named `var` cannot become a proxy, from its uses in `scope`; nullopt when
  // every use is a field access, a copy, an assignment of a whole value, a call that takes the
  // proxy (recorded in `calls`) or a member function call, whose edits go to `edits`: a const one
  // on a gathered copy, `S(e).m()`; a non-const one, as a statement of its own, on a copy that is
  // scattered back.
  std::optional<std::pair<std::string, clang::SourceRange>> checkRefUses(const clang::ValueDecl* var,
                                                                         const clang::Stmt* scope,
                                                                         const EntityInfo& info,
                                                                         std::vector<const clang::FunctionDecl*>& calls,
                                                                         std::vector<Edit>& edits);
  // The edits of a member function call on an element reference, `ref.m(args)`; false when they
  // cannot be made (the call's value is used, or its text comes from a macro).
  bool refMemberCall(const clang::DeclRefExpr* ref, const clang::MemberExpr* member, const std::string& type,
                     const EntityInfo& info, std::vector<Edit>& edits);
  // An array field split by index has no reference to one element's value: it stays per element.
  void keepFieldsWhole(const EntityInfo& info, const clang::Expr* at, const std::string& what);
  void keepWhole(const EntityInfo& info, const std::string& field, const std::string& what, const clang::Expr* at);
  // --- TransposedIndex.cpp: the index of an access to a transposed layout's arrays ---
  // Edits `subscript`'s index (of `ref`, an entity of `layout`, which is transposed) into where the
  // arrays store that element; false when its text is not written in the file.
  bool transposedIndex(const clang::ArraySubscriptExpr* subscript, const clang::Expr* ref, const DeviceLayout& layout,
                       std::vector<Edit>& out);
  // Whether every use of `local` in its function indexes `array` for a field access (`array[local].f`).
  bool indexesOnlyFieldsOf(const clang::VarDecl* local, const clang::ValueDecl* array);
  // A whole element's helper call (`relayoutLoad(p, row * W + k)`) on an entity of a transposed
  // layout: where the index is written `row * W + k`, it becomes `row, k`, for the helpers' by-row
  // overloads (the caller asks for kLoadByRow, kStoreByRow, kRefByRow or kConstRefByRow). False,
  // with nothing edited, otherwise.
  bool indexByRow(const clang::Expr* index, const EntityInfo& info, std::vector<Edit>& out);
  // --- RestrictLocals.cpp: a __restrict__ parameter's arrays as restrict-qualified locals, and
  // those of a kernel's or device function's parameter where relayout can prove the promise ---
  void noteRestrictParam(const clang::ParmVarDecl* parm, const EntityInfo& info);
  // The local that replaces `p.member` in an access, when `ref` names such a parameter.
  std::optional<std::string> restrictLocal(const clang::Expr* ref, const DeviceArray& array);
  // Whether `ref` names a parameter whose restrict locals relayout infers: its accesses are
  // recorded in both forms (Edit::restrictForm).
  bool inferredRestrict(const clang::Expr* ref) const;
  void emitRestrictLocals();
  // --- RestrictProof.cpp: whether the promise holds where the user did not make it ---
  // Why relayout cannot declare restrict locals for `parm` itself; the arrays the body writes go
  // to `written` (a device function's only locals).
  std::optional<std::string> restrictRefusal(const clang::ParmVarDecl* parm, const EntityInfo& info,
                                             std::set<std::string>& written);
  // What an lvalue (a field access of an element, `p[i].f`, `p->f.x`, `e.f` for `P& e`; a reference
  // parameter) does with the object: reads or writes its value, or keeps its address (a pointer or
  // reference that may outlive the expression: one stored, returned, or given to a function other
  // than an atomic, a load/store intrinsic or a function that only reads or writes through it).
  FieldUse fieldUse(const clang::Expr* lvalue, int depth = 0);
  // Records a field access that keeps the field's address (Entity::fieldAddress).
  void noteFieldAddress(const clang::MemberExpr* member, const EntityInfo* info);
  // --- ArrayFields.cpp: plain arrays' array fields split by index (variable-major) where every use allows ---
  bool splittable(const clang::FieldDecl* field, const EntityInfo& info) const;
  // Records an access to such a field in both forms (`kept` holds its per-element edits).
  void recordArrayAccess(const clang::MemberExpr* member, const clang::ArraySubscriptExpr* element,
                         const clang::Expr* ref, const EntityInfo& info, const std::optional<std::string>& local,
                         std::vector<Edit> kept);
  // The split form's edits, or why the use needs the field per element (the comment's words, the
  // use for the note).
  std::optional<std::pair<std::string, const clang::Expr*>> splitEdits(const clang::MemberExpr* member,
                                                                       const clang::ArraySubscriptExpr* element,
                                                                       const clang::Expr* ref, const EntityInfo& info,
                                                                       const std::optional<std::string>& local,
                                                                       std::vector<Edit>& out);
  // Whether relayout edits anything inside `expr` (an entity's use; a template parameter in a clone).
  bool editedInside(const clang::Expr* expr);
  std::optional<Subscript> subscriptText(const clang::Expr* index);
  // --- UseDescription.cpp: what a use that nothing above accepted does, for its warning ---
  std::pair<std::string, clang::SourceRange> describeUse(const clang::Expr* ref);

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  StructScanner& structs_;
  SourceEdits& edits_;
  DiagRenderer& diags_;
  ProgramFacts& facts_;
  const DeviceConditionals& device_;

  struct RestrictParam {
    const EntityInfo* info = nullptr;
    const clang::CompoundStmt* body = nullptr;
    bool pointeeConst = false;
    bool inferred = false;  // not declared __restrict__: relayout's own promise, in both forms
    // A device function's inferred locals: only the arrays it writes (null: every array it uses).
    std::optional<std::set<std::string>> only;
    std::set<std::string> taken;                // identifiers of the body, and locals named so far
    std::map<std::string, std::string> locals;  // device array member -> local name, as used
  };

  std::map<const clang::ValueDecl*, std::optional<EntityInfo>> entities_;
  std::map<const clang::FunctionDecl*, std::optional<EntityInfo>> returns_;  // return values that are entities
  std::map<const clang::ParmVarDecl*, RestrictParam> restrictParams_;
  std::map<std::string, std::set<std::string>> inferredWrites_;  // entity key -> arrays a device function writes
  std::vector<const clang::Expr*> refs_;                         // every reference to an entity, in source order
  std::set<const clang::Expr*> consumed_;
  std::map<std::pair<const void*, unsigned>, std::vector<const clang::DeclaratorDecl*>>
      groups_;                                           // declarations sharing one type
  std::vector<const clang::DeclRefExpr*> functionRefs_;  // functions with entity parameters
  std::set<const clang::Expr*> callees_;
  std::map<const clang::FunctionDecl*, std::string> cloned_;       // template specializations -> refusal
  std::map<const clang::FunctionDecl*, std::string> cloneOwners_;  // -> the entity whose change writes the clone
  // Functions taking an element by reference: why they get no overload (nullopt: they do, with these edits).
  std::map<const clang::FunctionDecl*, std::optional<std::string>> refClones_;
  std::map<const clang::FunctionDecl*, std::vector<Edit>> refCloneEdits_;
  std::set<const clang::InitListExpr*> lists_;     // aggregate initializers already read
  std::set<const clang::VarDecl*> buffers_;        // untyped buffers already read
  const clang::FunctionDecl* cloning_ = nullptr;   // the specialization being read for its clone
  const clang::FunctionDecl* instance_ = nullptr;  // the instance being read for its template's text
  std::map<const clang::FunctionTemplateDecl*, bool> readsInstances_;
  // The calls of each function with parameters of a planned struct, each with the parameters that
  // receive the new layout's arrays there (checkOverloadCalls).
  struct ParamPattern {
    const clang::CallExpr* call;
    std::set<unsigned> device;
  };
  std::map<std::pair<const clang::FunctionDecl*, const PlannedStruct*>, std::vector<ParamPattern>> callPatterns_;
};

// Prefix of every refusal: "cannot change the layout of 'S': ".
std::string refusalPrefix(const std::string& structName);

// The parameter an argument of a call binds to (the object of a member operator call binds to none).
const clang::ParmVarDecl* parameterOf(const clang::CallExpr* call, const clang::Stmt* arg);

// The declaration's USR (entities are keyed by it across units), or "" where it has none.
std::string usrOf(const clang::Decl* decl);

}  // namespace relayout::rw
