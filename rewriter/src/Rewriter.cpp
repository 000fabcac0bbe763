// rewriteSources: read every translation unit (StructScanner, UseCollector), check that units
// sharing a file see it alike (UnitAgreement) and the plan against the structs found, decide per
// struct over the whole program which entities hold device arrays (those linked to a variable
// cudaMalloc, cudaMallocManaged or cudaMallocHost fills) and whether all their uses can be
// rewritten, then apply the accepted structs' edits to the original bytes.
#include "relayout/rewriter/Rewriter.h"

#include "relayout/core/Files.h"

#include "CompileCheck.h"
#include "DeviceLayout.h"
#include "Diagnostics.h"
#include "DualUseFunctions.h"
#include "Facts.h"
#include "GeneratedFormat.h"
#include "LayoutEmitter.h"
#include "SourceEdits.h"
#include "StructScanner.h"
#include "UnitAgreement.h"
#include "UseCollector.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>

#include <set>

namespace relayout {

namespace {

using rw::Edit;
using rw::ProgramFacts;

class Collector : public clang::ASTConsumer {
 public:
  Collector(const Plan& plan, ProgramFacts& facts, const DeviceConditionals& device)
      : plan_(plan), facts_(facts), device_(device) {}
  void HandleTranslationUnit(clang::ASTContext& context) override {
    if (context.getDiagnostics().hasErrorOccurred()) return;
    rw::SourceEdits edits(context.getSourceManager(), context.getLangOpts(), facts_);
    rw::DiagRenderer diags(context);
    rw::StructScanner structs(context, plan_, edits, diags, facts_);
    structs.scan();
    rw::UseCollector(context, structs, edits, diags, facts_, device_).collect();
  }

 private:
  const Plan& plan_;
  ProgramFacts& facts_;
  const DeviceConditionals& device_;
};

// Who includes whom among the user's files, for the headers that must follow a changed one. Every
// #include directive counts, a skipped one too: a header included before through another path is
// skipped under its guard, yet from an output tree its "..." would reach the original.
class IncludeRecorder : public clang::PPCallbacks {
 public:
  IncludeRecorder(const clang::SourceManager& sm, ProgramFacts& facts) : sm_(sm), facts_(facts) {}
  void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file, llvm::StringRef, llvm::StringRef,
                          const clang::Module*, bool, clang::SrcMgr::CharacteristicKind kind) override {
    if (!file || kind != clang::SrcMgr::C_User || sm_.isInSystemHeader(hash)) return;
    clang::OptionalFileEntryRef includer = sm_.getFileEntryRefForID(sm_.getFileID(sm_.getFileLoc(hash)));
    if (!includer) return;  // the command line's -include
    std::string included(file->getFileEntry().tryGetRealPathName()), by(includer->getFileEntry().tryGetRealPathName());
    if (!included.empty() && !by.empty()) facts_.includedBy[included].insert(by);
  }

 private:
  const clang::SourceManager& sm_;
  ProgramFacts& facts_;
};

class CollectAction : public clang::ASTFrontendAction {
 public:
  CollectAction(const Plan& plan, ProgramFacts& facts) : plan_(plan), facts_(facts) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef) override {
    return std::make_unique<Collector>(plan_, facts_, device_);
  }
  bool BeginSourceFileAction(clang::CompilerInstance& compiler) override {
    compiler.setVerboseOutputStream(llvm::nulls());  // no "N errors generated": the error says it
    compiler.getPreprocessor().addPPCallbacks(std::make_unique<IncludeRecorder>(compiler.getSourceManager(), facts_));
    compiler.getPreprocessor().addPPCallbacks(
        recordDeviceConditionals(compiler.getSourceManager(), compiler.getLangOpts(), device_));
    return true;
  }

 private:
  const Plan& plan_;
  ProgramFacts& facts_;
  DeviceConditionals device_;  // of the unit this action reads
};

class CollectFactory : public clang::tooling::FrontendActionFactory {
 public:
  CollectFactory(const Plan& plan, ProgramFacts& facts) : plan_(plan), facts_(facts) {}
  std::unique_ptr<clang::FrontendAction> create() override { return std::make_unique<CollectAction>(plan_, facts_); }

 private:
  const Plan& plan_;
  ProgramFacts& facts_;
};

llvm::Error error(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// Every struct and field the plan names must exist, and every non-AoS partition must fit. Each
// error names the plan file and the struct's JSON pointer in it, when the plan came from a file.
llvm::Error checkPlan(const Plan& plan, llvm::StringRef planPath, const ProgramFacts& facts) {
  llvm::Error all = llvm::Error::success();
  for (size_t index = 0; index < plan.structs.size(); ++index) {
    const StructPlan& s = plan.structs[index];
    auto located = [&](llvm::Error err) {
      if (planPath.empty()) return err;
      return llvm::handleErrors(std::move(err), [&](const llvm::ErrorInfoBase& info) {
        return fileError(planPath, "/structs/" + llvm::Twine(index) + ": " + info.message());
      });
    };
    auto add = [&](llvm::Error err) { all = llvm::joinErrors(std::move(all), located(std::move(err))); };
    bool found = false;
    std::set<std::pair<std::string, unsigned>> places;  // a header's definition is seen once per unit
    for (const rw::StructDef& def : facts.defs) {
      if (def.name != s.name || !places.insert({def.file, def.insertOffset}).second) continue;
      found = true;
      std::set<std::string> known;
      for (const rw::FieldFacts& f : def.fields) known.insert(f.name);
      if (splitsFields(s.layout)) {
        if (auto layout = rw::makeDeviceLayout(s, def.spelled, def.fields); !layout) add(layout.takeError());
        else if (llvm::Error clash = rw::checkGeneratedNames(*layout, def)) add(std::move(clash));
      } else {
        for (const std::string& f : s.fields)
          if (!known.count(f))
            add(error("plan names field '" + f + "' of struct '" + s.name + "', which has no such field"));
      }
    }
    if (!found) add(error("plan names struct '" + s.name + "', which the sources do not define"));
  }
  return all;
}

class UnionFind {
 public:
  std::string find(const std::string& key) {
    auto it = parent_.find(key);
    if (it == parent_.end() || it->second == key) return key;
    return it->second = find(it->second);
  }
  void unite(const std::string& a, const std::string& b) {
    std::string ra = find(a), rb = find(b);
    if (ra != rb) parent_[ra] = rb;
  }

 private:
  std::map<std::string, std::string> parent_;
};

void addUnique(std::vector<std::string>& list, std::set<std::string>& seen, const std::string& text) {
  if (!text.empty() && seen.insert(text).second) list.push_back(text);
}

// The first of two edits that cannot both apply: overlapping replacements, or two different
// insertions at one place (their order would be a guess). An insertion where a replacement starts
// is fine: it sorts first and lands before the replaced text.
const Edit* firstConflict(const std::vector<Edit>& sorted) {
  for (size_t i = 1; i < sorted.size(); ++i) {
    const Edit& a = sorted[i - 1];
    const Edit& b = sorted[i];
    if (a.file != b.file) continue;
    bool sameInsertion = a.length == 0 && b.length == 0 && a.offset == b.offset;
    if (sameInsertion && a.anyOrder && b.anyOrder) continue;
    if (b.offset < a.offset + a.length || sameInsertion) return &b;
  }
  return nullptr;
}

std::string applyEdits(std::string text, const std::vector<Edit>& edits) {
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) text.replace(it->offset, it->length, it->text);
  return text;
}

// A file as relayout writes it: its edits applied, and the user's lines they made longer than the
// project's width re-wrapped (whitespace only, so what the compile check compiled stays the code).
std::string finalText(const std::string& original, const std::vector<Edit>& edits, const std::string& file) {
  return rw::rewrapChangedLines(original, applyEdits(original, edits), file);
}

// Per file, what a struct's layouts include and the earliest place one can go.
struct Includes {
  unsigned offset = ~0u;
  std::set<std::string> headers;
  bool cudaRuntime = false;
};

// A struct whose edits apply, until the compile check says otherwise.
struct AcceptedStruct {
  size_t outcome;  // index into RewriteResult::structs
  std::vector<Edit> edits;
  std::map<std::string, Includes> includes;
  std::vector<std::string> notes;  // why array fields stay per element
  const rw::StructDef* def;
};

// Per file, the sorted edits of `chosen` with one block of includes, at the place of its first
// generated layout's; what changes inside a function with other callers goes into its overload.
std::map<std::string, std::vector<Edit>> editsOf(const std::vector<const AcceptedStruct*>& chosen,
                                                 const ProgramFacts& facts) {
  std::vector<Edit> all;
  std::map<std::string, Includes> includes;
  for (const AcceptedStruct* s : chosen) {
    all.insert(all.end(), s->edits.begin(), s->edits.end());
    for (const auto& [file, in] : s->includes) {
      Includes& merged = includes[file];
      merged.offset = std::min(merged.offset, in.offset);
      merged.headers.insert(in.headers.begin(), in.headers.end());
      merged.cudaRuntime |= in.cudaRuntime;
    }
  }
  for (const auto& [file, in] : includes)
    all.push_back(Edit{file, in.offset, 0, 0, rw::emitIncludes(in.headers, in.cudaRuntime), true});
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::map<std::string, std::vector<Edit>> byFile;
  for (const Edit& e : all) byFile[e.file].push_back(e);
  rw::completeProxyClones(byFile, facts.proxyClones);
  rw::moveIntoOverloads(byFile, facts.dualUse, facts.contents);
  return byFile;
}

// The bytes of a file no edit named (so Clang's buffers did not record it), read from `path` into
// facts.contents under its real path.
llvm::Error readContents(ProgramFacts& facts, const std::string& real, const std::string& path) {
  if (facts.contents.count(real)) return llvm::Error::success();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return error(path + ": " + buffer.getError().message());
  facts.contents[real] = (*buffer)->getBuffer().str();
  return llvm::Error::success();
}

std::string realPath(const std::string& path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return path;
  return real.str().str();
}

}  // namespace

static std::string messageOf(const std::string& rendered);

// Keeps the structs of `chosen` whose rewrite compiles: the program with all of them first; when
// that fails, each struct alone (refusing those that fail), then the rest together (refusing all
// of them if they still fail: their rewrites do not compile together).
static void keepWhatCompiles(std::vector<const AcceptedStruct*>& chosen, const std::vector<std::string>& sources,
                             const clang::tooling::CompilationDatabase& db, const ProgramFacts& facts,
                             RewriteResult& result, std::set<std::string>& seen) {
  if (chosen.empty()) return;
  rw::CompileCheck check(db, sources);
  auto failureOf = [&](const std::vector<const AcceptedStruct*>& structs) {
    std::map<std::string, std::string> replaced;
    for (const auto& [file, edits] : editsOf(structs, facts))
      replaced[file] = applyEdits(facts.contents.at(file), edits);
    return check.firstFailure(replaced);
  };
  auto refuse = [&](const AcceptedStruct* s, const rw::CompileFailure& failure) {
    StructOutcome& outcome = result.structs[s->outcome];
    std::string warning = rw::compileRefusal(outcome.name, failure, facts.contents, editsOf({s}, facts), s->def->file,
                                             s->def->insertOffset);
    addUnique(result.diagnostics, seen, warning);
    addUnique(result.diagnostics, seen, s->def->keptNote);
    outcome.rewritten = false;
    outcome.reasons.push_back(messageOf(warning));
  };
  if (!failureOf(chosen)) return;
  std::vector<const AcceptedStruct*> compiling;
  for (const AcceptedStruct* s : chosen) {
    if (auto failure = failureOf({s})) refuse(s, *failure);
    else compiling.push_back(s);
  }
  if (compiling.size() > 1)
    if (auto failure = failureOf(compiling)) {
      for (const AcceptedStruct* s : compiling) refuse(s, *failure);
      compiling.clear();
    }
  chosen = std::move(compiling);
}

// The message of a rendered diagnostic: its first line after "warning: " (or "note: ").
static std::string messageOf(const std::string& rendered) {
  // A diagnostic in a header starts with "In file included from" lines; the message is on the first line
  // that names its kind.
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(rendered).split(lines, '\n');
  llvm::StringRef message = lines.empty() ? llvm::StringRef() : lines.front();
  for (llvm::StringRef line : lines) {
    bool found = false;
    for (llvm::StringRef kind : {"warning: ", "note: ", "error: "})
      if (size_t at = line.find(kind); !found && at != llvm::StringRef::npos) {
        message = line.drop_front(at + kind.size());
        found = true;
      }
    if (found) break;
  }
  // "cannot change the layout of 'S': why" -> "why": the struct is named where the reason is shown.
  if (message.starts_with("cannot change the layout of '"))
    if (size_t at = message.find("': "); at != llvm::StringRef::npos) message = message.drop_front(at + 3);
  return message.str();
}

// A clang-style warning at `offset` of `file` (a real path whose bytes `facts` holds).
static std::string warningAt(ProgramFacts& facts, const std::string& file, unsigned offset,
                             const std::string& message) {
  return file + ":" + rw::position(facts.contents[file], offset) + ": warning: " + message;
}

// Adds `edits` to `accepted` (sorted, unique) unless one clashes with an edit there; then returns the
// warning, `overlap` saying what overlaps ("cannot ...: its edits overlap").
std::optional<std::string> acceptUnlessClash(std::vector<Edit>& accepted, const std::vector<Edit>& edits,
                                             ProgramFacts& facts, const std::string& overlap) {
  std::vector<Edit> merged = accepted;
  merged.insert(merged.end(), edits.begin(), edits.end());
  std::sort(merged.begin(), merged.end());
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  if (const Edit* clash = firstConflict(merged))
    return warningAt(facts, clash->file, clash->offset,
                     overlap + " with another rewrite here; relayout does not combine them");
  accepted = std::move(merged);
  return std::nullopt;
}

// A struct that `warnings` keep as it is: the warnings and `keptNote` among the diagnostics, each
// message once among its reasons.
void recordRefused(StructOutcome outcome, const std::vector<std::string>& warnings, const std::string& keptNote,
                   RewriteResult& result, std::set<std::string>& seen) {
  for (const std::string& w : warnings) addUnique(result.diagnostics, seen, w);
  addUnique(result.diagnostics, seen, keptNote);
  std::set<std::string> reasons;
  for (const std::string& w : warnings)
    if (reasons.insert(messageOf(w)).second) outcome.reasons.push_back(messageOf(w));
  result.ok = false;
  result.structs.push_back(std::move(outcome));
}

// A record the plan aligns: its `alignas` edits, unless some unit refused them (each unit
// finds its own hazards, so every unit's definition counts) or they overlap another rewrite.
void acceptAlignment(const StructPlan& s, ProgramFacts& facts, RewriteResult& result, std::set<std::string>& seen,
                     std::vector<Edit>& accepted, std::vector<AcceptedStruct>& acceptedStructs) {
  StructOutcome outcome{s.name, s.layout, false};
  std::vector<std::string> warnings;
  std::set<std::string> warned;
  std::vector<Edit> edits;
  const rw::StructDef* first = nullptr;
  for (const rw::StructDef& def : facts.defs) {
    if (def.name != s.name) continue;
    if (!first) first = &def;
    outcome.align = def.align;
    for (const std::string& w : def.refusals) addUnique(warnings, warned, w);
    edits.insert(edits.end(), def.alignEdits.begin(), def.alignEdits.end());
  }
  std::sort(edits.begin(), edits.end());
  edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
  if (warnings.empty())
    if (auto clash = acceptUnlessClash(accepted, edits, facts, "cannot align '" + s.name + "': its edit overlaps"))
      warnings.push_back(*clash);
  if (!warnings.empty()) return recordRefused(outcome, warnings, first ? first->keptNote : "", result, seen);
  acceptedStructs.push_back(AcceptedStruct{result.structs.size(), std::move(edits), {}, {}, first});
  outcome.rewritten = true;
  result.structs.push_back(outcome);
}

llvm::Expected<RewriteResult> rewriteSources(const Plan& plan, const std::vector<std::string>& sources,
                                             const clang::tooling::CompilationDatabase& db, llvm::StringRef planPath) {
  ProgramFacts facts;
  std::string compilerOutput;
  llvm::raw_string_ostream compilerStream(compilerOutput);
  clang::DiagnosticOptions printerOptions;
  rw::ErrorPrinter printer(compilerStream, printerOptions);
  CollectFactory factory(plan, facts);
  bool parsed = true;
  std::vector<rw::UnitFacts> units;            // what each source added, for the files they share
  for (const std::string& source : sources) {  // one tool per source: no progress lines on stderr
    rw::UnitRecorder recorder(facts);
    clang::tooling::ClangTool tool(db, {source});
    tool.setDiagnosticConsumer(&printer);
    tool.setPrintErrorMessage(false);
    parsed &= tool.run(&factory) == 0;
    units.push_back(recorder.added(facts));
  }
  if (!parsed)
    return error("could not parse the sources, so nothing was rewritten:\n" + llvm::StringRef(compilerOutput).rtrim());
  // Before the plan check: a unit that sees other fields would otherwise fail it with a message
  // that names neither unit.
  if (llvm::Error err = rw::checkUnitsAgree(plan, facts, units, sources)) return err;
  if (llvm::Error err = checkPlan(plan, planPath, facts)) return err;

  rw::keepCalleesOfKept(facts);
  UnionFind groups;
  for (const auto& [a, b] : facts.links) groups.unite(a, b);

  RewriteResult result;
  std::set<std::string> seen;
  std::vector<Edit> accepted;  // sorted, unique
  std::vector<AcceptedStruct> acceptedStructs;
  for (const StructPlan& s : plan.structs) {
    if (s.layout == Layout::Aligned) {
      acceptAlignment(s, facts, result, seen, accepted, acceptedStructs);
      continue;
    }
    if (!splitsFields(s.layout)) continue;
    StructOutcome outcome{s.name, s.layout, false};
    std::vector<const rw::StructDef*> defs;
    std::set<std::pair<std::string, unsigned>> places;
    for (const rw::StructDef& def : facts.defs)
      if (def.name == s.name && places.insert({def.file, def.insertOffset}).second) defs.push_back(&def);

    std::set<std::string> deviceGroups;
    for (const auto& [key, e] : facts.entities)
      if (e.structName == s.name && e.seed) deviceGroups.insert(groups.find(key));
    std::vector<const rw::Entity*> device;
    for (const auto& [key, e] : facts.entities)
      if (e.structName == s.name && deviceGroups.count(groups.find(key))) device.push_back(&e);
    auto changes = [&](const std::string& key) {
      auto it = facts.entities.find(key);
      return it != facts.entities.end() && it->second.structName == s.name && deviceGroups.count(groups.find(key));
    };
    // The conditional uses of each changing entity that hold, given which others change too.
    auto holding = [&](const rw::Entity& e) {
      std::vector<const rw::ConditionalUse*> out;
      for (const rw::ConditionalUse& c : e.conditionals)
        if (changes(c.other) == c.otherChanges) out.push_back(&c);
      return out;
    };

    std::vector<std::string> warnings;
    std::set<std::string> warned;
    for (const rw::StructDef* def : defs)
      for (const std::string& w : def->refusals) addUnique(warnings, warned, w);
    for (const rw::Entity* e : device) {
      for (const std::string& w : e->refusals) addUnique(warnings, warned, w);
      if (!e->undefinedWarning.empty() && !e->defined) addUnique(warnings, warned, e->undefinedWarning);
      for (const rw::ConditionalUse* c : holding(*e))
        for (const std::string& w : c->refusals) addUnique(warnings, warned, w);
    }
    if (device.empty()) {
      // Untyped buffers cast to the struct say where its device array is and why it was not taken.
      // Else pointers whose value comes from where relayout does not follow say where it may be.
      auto buffers = facts.untypedBuffers.find(s.name);
      std::vector<std::string> why;
      if (buffers != facts.untypedBuffers.end()) why = buffers->second;
      for (const auto& [key, e] : facts.entities)
        if (why.empty() && e.structName == s.name && !e.unfollowedValue.empty()) why.push_back(e.unfollowedValue);
      if (why.empty()) why.push_back(defs.front()->noArraysWarning);
      std::set<std::string> reasons;
      for (const std::string& w : why) {
        addUnique(result.diagnostics, seen, w);
        if (reasons.insert(messageOf(w)).second) outcome.reasons.push_back(messageOf(w));
      }
      if (buffers != facts.untypedBuffers.end()) addUnique(result.diagnostics, seen, defs.front()->keptNote);
      result.structs.push_back(outcome);
      continue;
    }

    // Plain array fields are split by index unless a use of some changing entity needs one per element.
    std::map<std::string, rw::KeptField> kept;
    for (const rw::Entity* e : device) kept.insert(e->keptWhole.begin(), e->keptWhole.end());
    auto split = [&](const std::string& field) { return !kept.count(field); };

    // Restrict locals that relayout infers (RestrictProof.cpp) hold where no unit refused them for
    // the parameter and no use anywhere keeps the address of a field of a changing array.
    bool fieldAddress = facts.fieldAddressStructs.count(s.name) > 0;
    for (const rw::Entity* e : device) fieldAddress |= !e->fieldAddress.empty();
    auto pick = [&](const rw::Entity& e, const std::vector<Edit>& from, std::vector<Edit>& to) {
      bool promised = !fieldAddress && e.restrictRefused.empty();
      for (const Edit& edit : from)
        if (edit.restrictForm == Edit::kAlways || (edit.restrictForm == Edit::kWithRestrict) == promised) {
          to.push_back(edit);
          to.back().restrictForm = Edit::kAlways;
        }
    };

    std::vector<Edit> edits;
    std::map<std::string, Includes> structIncludes;
    unsigned helpers = 0;
    if (warnings.empty()) {
      for (const rw::Entity* e : device) {
        pick(*e, e->edits, edits);
        const bool readOnly = e->helpers & rw::kConstView;
        helpers |= rw::readOnlyHelpers(e->helpers, readOnly);
        for (const rw::ConditionalUse* c : holding(*e)) {
          edits.insert(edits.end(), c->edits.begin(), c->edits.end());
          helpers |= rw::readOnlyHelpers(c->helpers, readOnly);
        }
        for (const rw::FieldForm& f : e->forms) pick(*e, split(f.field) ? f.split : f.kept, edits);
        for (const rw::ComposedText& c : e->clones) {
          // Overloads of one template for two structs follow it in either order.
          if (auto text = rw::composeText(c, split)) edits.push_back(Edit{c.file, c.at, 0, 0, c.header + *text, true});
          else
            warnings.push_back(warningAt(facts, c.file, c.from,
                                         rw::refusalPrefix(s.name) + "the edits of this template's overload overlap"));
        }
      }
    }
    if (warnings.empty() && s.transpose)
      if (auto hazard = rw::transposeHazard(helpers, defs.front()->fields))
        warnings.push_back(
            warningAt(facts, defs.front()->file, defs.front()->nameOffset, rw::refusalPrefix(s.name) + *hazard));
    if (warnings.empty()) {
      for (const rw::StructDef* def : defs) {
        auto layout = rw::makeDeviceLayout(s, def->spelled, def->fields);
        if (!layout) return layout.takeError();      // checked above
        std::map<std::string, std::string> keptWhy;  // array fields some use needs per element
        for (const auto& [field, why] : kept) keptWhy[field] = why.comment;
        rw::decideSplits(*layout, keptWhy);
        rw::EmittedLayout emitted = rw::emitDeviceLayout(*layout, *def, helpers);
        Includes& in = structIncludes[def->file];
        in.offset = std::min(in.offset, def->includeOffset);
        in.headers.insert(emitted.headers.begin(), emitted.headers.end());
        in.cudaRuntime |= emitted.callsRuntime;
        std::string code = rw::formatGenerated(emitted.code, def->file, facts.contents[def->file]);
        code = def->insertAtLineStart ? "\n" + code + (def->blankLineFollows ? "" : "\n") : "\n\n" + code;
        edits.push_back(Edit{def->file, def->insertOffset, 0, 0, code});
        if (def->privateFields) edits.push_back(rw::fieldAccessFriend(*layout, *def, facts.contents[def->file]));
      }
      if (auto clash = acceptUnlessClash(accepted, edits, facts, rw::refusalPrefix(s.name) + "its edits overlap"))
        warnings.push_back(*clash);
    }
    if (!warnings.empty()) {
      recordRefused(outcome, warnings, defs.front()->keptNote, result, seen);
      continue;
    }
    AcceptedStruct done{result.structs.size(), std::move(edits), std::move(structIncludes), {}, defs.front()};
    for (const auto& [field, why] : kept) done.notes.push_back(why.note);
    acceptedStructs.push_back(std::move(done));
    outcome.rewritten = true;
    result.structs.push_back(outcome);
  }

  // The original bytes of every file an edit or the command line names, by real path.
  std::vector<std::string> realSources;
  for (const std::string& source : sources) {
    std::string real = realPath(source);
    realSources.push_back(real);
    if (llvm::Error err = readContents(facts, real, source)) return err;
  }
  std::vector<const AcceptedStruct*> chosen;
  for (const AcceptedStruct& s : acceptedStructs) chosen.push_back(&s);
  keepWhatCompiles(chosen, sources, db, facts, result, seen);
  for (const AcceptedStruct* s : chosen)
    for (const std::string& note : s->notes) addUnique(result.diagnostics, seen, note);
  for (const StructOutcome& o : result.structs) result.ok &= o.rewritten;

  std::map<std::string, std::vector<Edit>> byFile = editsOf(chosen, facts);
  std::set<std::string> written;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string& original = facts.contents[realSources[i]];
    result.files.push_back({sources[i], original, finalText(original, byFile[realSources[i]], realSources[i])});
    written.insert(realSources[i]);
  }
  std::vector<std::string> changed;
  for (const auto& [file, edits] : byFile)
    if (!written.count(file)) {
      result.files.push_back({file, facts.contents[file], finalText(facts.contents[file], edits, file)});
      written.insert(file);
    }
  for (const RewrittenFile& file : result.files)
    if (file.rewritten != file.original) changed.push_back(realPath(file.path));
  // The unchanged headers on the way from a source to a changed header.
  while (!changed.empty()) {
    std::string file = changed.back();
    changed.pop_back();
    for (const std::string& includer : facts.includedBy[file])
      if (written.insert(includer).second) {
        if (llvm::Error err = readContents(facts, includer, includer)) return err;
        result.files.push_back({includer, facts.contents[includer], facts.contents[includer], true});
        changed.push_back(includer);
      }
  }
  return result;
}

}  // namespace relayout
