// Walks the device code of one translation unit: finds struct-field accesses (sites), loops and
// kernel entries in every project file the unit reads (its main source and the project's own
// headers), with their byte offsets. Ids and hooks come later, over all units (Assemble.cpp).
// Which expressions are accesses: AccessForms.cpp.
#pragma once

#include "Collection.h"

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <functional>

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace relayout {

// Written __global__ or __device__: Clang makes constexpr functions __host__ __device__ by itself.
bool isDeviceFunction(const clang::FunctionDecl* fn);

// The function as written (its canonical declaration): a template's pattern for each of its
// instantiations.
const clang::FunctionDecl* writtenFunction(const clang::FunctionDecl* fn);

// Whether the callee's body reaches only local objects at this call: its own, and those the call
// passes by reference (`positionPnL(mine, ...)` with `const Asset mine`): no pointer, `[]`, `->`,
// `this`, variable outside its frame or loop (LocalObjects.cpp; RawCall::localObjects).
bool reachesOnlyLocalObjects(const clang::CallExpr* call, const clang::FunctionDecl* callee);

class SiteCollector : public clang::RecursiveASTVisitor<SiteCollector> {
  using Base = clang::RecursiveASTVisitor<SiteCollector>;

 public:
  // isProjectFile: whether an absolute path is one of the project's own files (instrumented),
  // rather than a system, CUDA or library header.
  SiteCollector(clang::ASTContext& context, std::function<bool(llvm::StringRef)> isProjectFile);

  // Visits the whole translation unit and fills `findings`.
  void collect(UnitFindings& findings);

  // Templates: accesses are found in each instantiation (where types are known) and hooked once
  // in the pattern's text; the patterns themselves are not walked.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(clang::Decl* decl);
  bool TraverseForStmt(clang::ForStmt* loop);
  bool TraverseWhileStmt(clang::WhileStmt* loop);
  bool TraverseDoStmt(clang::DoStmt* loop);
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt* loop);
  bool VisitMemberExpr(clang::MemberExpr* member);
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) { return visitElement(e); }
  bool VisitUnaryOperator(clang::UnaryOperator* e) { return visitElement(e); }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) { return visitElement(e); }
  bool VisitCallExpr(clang::CallExpr* call);
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* e);
  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr* launch);
  // A loop under an attribute (`#pragma unroll`) is not split: the pragma must stay before it.
  bool VisitAttributedStmt(clang::AttributedStmt* s) {
    attributed_.insert(s->getSubStmt());
    return true;
  }

 private:
  // A range of a project file: its absolute path and [begin, end) byte offsets.
  struct FileRange {
    std::string file;
    unsigned begin = 0, end = 0;
    clang::SourceLocation at;  // the range's start
  };
  // A touched part of an element, from a top-level field down: "pos.x" at offset 12, size 4.
  struct Touched {
    const clang::FieldDecl* field = nullptr;
    std::string member;
    unsigned offset = 0, size = 0;
  };

  // AccessForms.cpp
  const clang::RecordDecl* elementRecord(const clang::Expr* e) const;
  bool isElementLvalue(const clang::Expr* e) const { return elementRecord(e) != nullptr; }
  bool thisIsElement() const;
  const clang::CXXMethodDecl* methodOnElement(const clang::CallExpr* call) const;
  void markElementParameters();
  void checkCallOnElement(const clang::CallExpr* call);
  void checkCallOnMember(const clang::CallExpr* call);
  const clang::Expr* extendMemberChain(const clang::MemberExpr* root, Touched& touched) const;
  AccessKind accessKindOf(const clang::Expr* access) const;
  bool visitElement(clang::Expr* e);

  // SiteCollector.cpp
  template <class Traverse>
  bool traverseLoop(clang::Stmt* loop, clang::Stmt* body, clang::SourceLocation headerEnd, const char* kind,
                    Traverse traverse);
  void warn(clang::SourceLocation loc, llvm::StringRef message, clang::SourceRange range = {});
  // The project file and offset of a location spelled in one (not in a macro body).
  std::optional<FilePlace> projectPlace(clang::SourceLocation loc) const;
  // file:line:col with the file's absolute path when it is a project file.
  SourceLocation where(clang::SourceLocation loc) const;
  bool inProjectFile(clang::SourceLocation loc) const { return projectPlace(sm_.getExpansionLoc(loc)).has_value(); }
  std::optional<FileRange> fileRange(const clang::Expr* e, llvm::StringRef what);
  bool existingAccess(const FileRange& range, const std::string& structName, AccessKind access,
                      clang::SourceLocation loc);
  // The condition on the template arguments of the instantiation being walked, as code the
  // template's own text can hold: `__rl_same<T, ::Edge>::value && (N == 4)`; none outside a
  // function template, or where an argument cannot be named there.
  std::optional<std::string> instanceCondition(const clang::FunctionDecl* fn) const;
  // A field access already hooked from another instantiation of its template: recorded as its
  // own site where it reaches another struct or field, else merged. False when not hooked yet.
  bool existingInstanceAccess(const FileRange& range, const SiteInfo& site, const std::string& condition);
  // W where an element (`p[i]`) is indexed `row * W + k` (clangsupport's RowMajorIndex, also
  // through a local); else 0.
  unsigned elementRowWidth(const clang::Expr* element) const;
  // What the site map says of the element an access reaches (`p[i]` of `p[i].pos.x`): its row
  // width and the key of the accesses to the same element in the same code (SameElement.h).
  void describeElement(SiteInfo& site, const clang::Expr* access) const;
  SiteInfo newSite(const clang::RecordDecl* record, const Touched& touched, AccessKind access,
                   clang::SourceLocation loc);
  void addFieldSite(const clang::Expr* access, const clang::RecordDecl* record, const Touched& touched);
  // One site per field of an element used whole; with `read`, those of the fields it does not name
  // are `unread` (a copy whose other fields nothing reads).
  void addWholeSites(const clang::Expr* element, const clang::RecordDecl* record, AccessKind access,
                     const std::set<std::string>* read = nullptr);
  void addKernelEntry(const clang::FunctionDecl* kernel, const std::string& name);
  // An instantiation of a kernel template: its condition joins the kernel's entry, whose hook then
  // tells the runtime which instantiation runs (launch sampling admits each one's first launches).
  void addKernelInstance(const clang::FunctionDecl* written, const clang::FunctionDecl* instance);
  void reportUnusedStructParameters();

  // CountedLoops.cpp
  std::optional<CountedHeader> countedHeader(const clang::ForStmt* loop, const std::string& file);
  // Records whether a loop just walked is counted and whether it can be thinned, in each walk of it
  // (RawLoop::counted, RawLoop::thinnable).
  void noteLoopHeader(const clang::Stmt* loop);

  // PlainClones.cpp
  std::optional<std::pair<FilePlace, unsigned>> declarationRange(const clang::FunctionDecl* fn, bool definition) const;
  std::optional<FilePlace> namePlace(clang::SourceLocation loc) const;
  std::optional<unsigned> cloneMarkPlace(const clang::FunctionDecl* fn, CloneMark mark, const std::string& file) const;
  void noteGridConstants(const clang::FunctionDecl* written, RawFunctionText& text) const;
  void noteKernelBranch(const clang::FunctionDecl* kernel, const clang::CompoundStmt* body, const FilePlace& open,
                        RawFunctionText& text) const;
  // The tokens of a source range spelled whole in one project file: where they start, the offset
  // past their end, and their text (in the source buffer).
  struct Spelled {
    FilePlace place;
    unsigned end;
    llvm::StringRef text;
  };
  std::optional<Spelled> spelledRange(clang::SourceRange range) const;
  void notePlainClone(const clang::FunctionDecl* definition);
  std::optional<FilePlace> openParenAfter(const clang::Expr* called) const;
  void noteCall(const clang::Expr* call, const clang::FunctionDecl* callee);
  void noteIndirectCall(const clang::CallExpr* call);
  bool isProjectDeviceFunction(const clang::FunctionDecl* fn) const;
  // The definition as written (a template's pattern) that a call or launch reaches.
  static const clang::FunctionDecl* writtenCallee(const clang::FunctionDecl* fn);
  std::optional<std::string> spelledTemplateArguments(const clang::FunctionDecl* kernel) const;
  void resolveClones();
  struct PendingCall {
    FilePlace at;             // the callee's name, or the `(` of a call operator or through a pointer
    unsigned markLength = 0;  // from `at` to the mark: the name's length, or 1
    CloneMark mark = CloneMark::renamed;
    bool renamable = false;
    bool localObjects = false;                    // RawCall::localObjects
    const clang::FunctionDecl* callee = nullptr;  // none outside the project
  };
  struct PendingLaunch {
    std::string file;
    RawLaunch launch;
    const clang::FunctionDecl* kernel = nullptr;
  };

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  std::function<bool(llvm::StringRef)> isProjectFile_;
  std::map<clang::FileID, std::optional<std::string>> projectFileOf_;  // cache: absolute path, or none
  unsigned warningId_;

  const clang::FunctionDecl* function_ = nullptr;  // the device function (or instantiation) being walked
  bool inConstexpr_ = false;
  std::vector<FilePlace> loopStack_;
  std::set<const clang::Stmt*> attributed_;  // statements under an attribute
  std::map<std::string, FileFindings> files_;
  std::map<std::string, StructInfo> structs_;
  // Functions with at least one site in this unit, and device functions with a struct-pointer
  // parameter, for the "no access recorded" note.
  std::set<std::string> functionsWithSites_;
  // Reference parameters bound to elements at some call in this unit: (function, index).
  std::set<std::pair<const clang::FunctionDecl*, unsigned>> elementParams_;
  // Member functions some call in this unit runs on an element (canonical decls).
  std::set<const clang::FunctionDecl*> elementMethods_;

  // Functions as written (a template's pattern stands for its instantiations) and the decls walked.
  std::vector<FunctionInfo> functions_;
  std::vector<const clang::FunctionDecl*> writtenFunctions_;  // parallel to functions_
  std::map<const clang::FunctionDecl*, size_t> functionIndex_;
  std::vector<const clang::FunctionDecl*> walked_;
  std::map<const clang::FunctionDecl*, std::set<const clang::FunctionDecl*>> callees_;
  // Plain clones: the definitions that have one, by their place; calls and launches to resolve.
  std::map<const clang::FunctionDecl*, FilePlace> clonePlaces_;
  std::vector<PendingCall> pendingCalls_;
  std::vector<PendingLaunch> pendingLaunches_;
};

}  // namespace relayout
