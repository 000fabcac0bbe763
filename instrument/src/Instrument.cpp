#include "relayout/instrument/Instrument.h"

#include "Assemble.h"
#include "SiteCollector.h"

#include "relayout/clangsupport/DeviceConditionals.h"
#include "relayout/clangsupport/HeldWarnings.h"
#include "relayout/core/Files.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace relayout {

namespace {

bool isBelow(llvm::StringRef path, llvm::StringRef folder) {
  if (folder.empty() || !path.starts_with(folder)) return false;
  return path.size() == folder.size() || folder.back() == '/' || path[folder.size()] == '/';
}

// Which files are the project's own: below the folder of the main source, of its -I/-iquote
// flags or of InstrumentOptions::projectFolders; never below CUDA's or the compiler's own headers
// (which a project folder such as / would otherwise take in).
class ProjectFiles {
 public:
  ProjectFiles(clang::CompilerInstance& ci, llvm::StringRef mainFile, const InstrumentOptions& options) {
    folders_.push_back(llvm::sys::path::parent_path(mainFile).str());
    for (const auto& entry : ci.getHeaderSearchOpts().UserEntries)
      if (entry.Group == clang::frontend::Quoted || entry.Group == clang::frontend::Angled)
        folders_.push_back(resolvedPath(entry.Path));
    for (const std::string& folder : options.projectFolders) folders_.push_back(resolvedPath(folder));
    excluded_.push_back(resolvedPath(RELAYOUT_CUDA_ROOT));
    excluded_.push_back(resolvedPath(ci.getHeaderSearchOpts().ResourceDir));
  }
  bool operator()(llvm::StringRef path) const {
    for (const std::string& e : excluded_)
      if (isBelow(path, e)) return false;
    for (const std::string& f : folders_)
      if (isBelow(path, f)) return true;
    return false;
  }

 private:
  std::vector<std::string> folders_, excluded_;
};

// Field accesses in code only the device side compiles (`#if __CUDA_ARCH__`): the host-side parse
// never sees them, so they get no site and the profile does not count them. One warning per
// skipped part of a project file that names a field of a struct the unit accesses elsewhere.
void warnDeviceOnlyAccesses(clang::CompilerInstance& ci, const DeviceConditionals& device, const UnitFindings& findings,
                            const ProjectFiles& isProject) {
  std::map<std::string, std::string> structOfField;
  for (const auto& [name, info] : findings.structs)
    for (const FieldInfo& field : info.fields) structOfField.try_emplace(field.name, name);
  const clang::SourceManager& sm = ci.getSourceManager();
  const unsigned id = ci.getDiagnostics().getCustomDiagID(
      clang::DiagnosticsEngine::Warning,
      "code only the device side compiles (#if __CUDA_ARCH__) accesses '%0' of '%1': relayout parses the host side, "
      "so this access is not profiled, and a layout change of '%1' is refused where it does not compile there");
  for (clang::SourceRange range : device.skipped) {
    clang::FileID file = sm.getFileID(range.getBegin());
    if (file != sm.getFileID(range.getEnd()) || sm.isInSystemHeader(range.getBegin())) continue;
    clang::OptionalFileEntryRef entry = sm.getFileEntryRefForID(file);
    if (!entry || !isProject(resolvedPath(entry->getName()))) continue;
    llvm::StringRef buffer = sm.getBufferData(file);
    const unsigned begin = sm.getFileOffset(range.getBegin()), end = sm.getFileOffset(range.getEnd());
    clang::Lexer lexer(sm.getLocForStartOfFile(file), ci.getLangOpts(), buffer.begin(), buffer.begin() + begin,
                       buffer.end());
    clang::Token token;
    bool member = false;
    while (!lexer.LexFromRawLexer(token) && sm.getFileOffset(token.getLocation()) < end) {
      if (member && token.is(clang::tok::raw_identifier))
        if (auto field = structOfField.find(token.getRawIdentifier().str()); field != structOfField.end()) {
          ci.getDiagnostics().Report(token.getLocation(), id) << field->first << field->second;
          break;
        }
      member = token.isOneOf(clang::tok::period, clang::tok::arrow);
    }
  }
}

class InstrumentConsumer : public clang::ASTConsumer {
 public:
  InstrumentConsumer(clang::CompilerInstance& ci, const InstrumentOptions& options, std::vector<UnitFindings>& results,
                     const DeviceConditionals& device)
      : ci_(ci), options_(options), results_(results), device_(device) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;  // Clang already said why
    clang::SourceManager& sm = context.getSourceManager();
    UnitFindings findings;
    clang::OptionalFileEntryRef main = sm.getFileEntryRefForID(sm.getMainFileID());
    findings.mainFile = resolvedPath(main ? main->getName() : "");
    ProjectFiles isProject(ci_, findings.mainFile, options_);
    SiteCollector(context, isProject).collect(findings);
    warnDeviceOnlyAccesses(ci_, device_, findings, isProject);
    // Every project file the unit reads, with the bytes Clang parsed: the instrumented tree holds
    // them all, so that relative includes resolve in it as in the original.
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      clang::FileEntryRef entry = it->first;
      std::string path = resolvedPath(entry.getName());
      if (!isProject(path)) continue;
      clang::FileID id = sm.translateFile(entry);
      if (id.isInvalid() || sm.isInSystemHeader(sm.getLocForStartOfFile(id))) continue;
      findings.texts[path] = sm.getBufferData(id).str();
    }
    findings.mainSha256 = sha256Hex(findings.texts[findings.mainFile] = sm.getBufferData(sm.getMainFileID()).str());
    results_.push_back(std::move(findings));
  }

 private:
  clang::CompilerInstance& ci_;
  const InstrumentOptions& options_;
  std::vector<UnitFindings>& results_;
  const DeviceConditionals& device_;
};

class InstrumentAction : public clang::ASTFrontendAction {
 public:
  InstrumentAction(const InstrumentOptions& options, std::vector<UnitFindings>& results)
      : options_(options), results_(results) {}

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(recordDeviceConditionals(ci.getSourceManager(), ci.getLangOpts(), device_));
    return ASTFrontendAction::BeginSourceFileAction(ci);
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<InstrumentConsumer>(ci, options_, results_, device_);
  }

 private:
  const InstrumentOptions& options_;
  std::vector<UnitFindings>& results_;
  DeviceConditionals device_;  // of the unit this action reads
};

class InstrumentActionFactory : public clang::tooling::FrontendActionFactory {
 public:
  InstrumentActionFactory(const InstrumentOptions& options, std::vector<UnitFindings>& results)
      : options_(options), results_(results) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<InstrumentAction>(options_, results_);
  }

 private:
  const InstrumentOptions& options_;
  std::vector<UnitFindings>& results_;
};

}  // namespace

llvm::Expected<InstrumentResult> instrumentSources(const std::vector<std::string>& sources,
                                                   const clang::tooling::CompilationDatabase& db,
                                                   const InstrumentOptions& options) {
  std::vector<UnitFindings> findings;
  InstrumentActionFactory factory(options, findings);
  bool ok = true;
  for (const std::string& source : sources) {  // one at a time, so that findings[i] is sources[i]
    size_t before = findings.size();
    clang::tooling::ClangTool tool(db, {source});
    HeldWarnings held(llvm::errs());
    if (options.holdClangWarnings) tool.setDiagnosticConsumer(&held);
    ok &= tool.run(&factory) == 0 && findings.size() == before + 1;
    if (!ok) held.release();
    if (!ok) break;
  }
  if (!ok)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "instrumentation failed: the sources do not compile (see the errors above)");
  return assembleUnits(std::move(findings), sources, options);
}

}  // namespace relayout
