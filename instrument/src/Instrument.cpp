#include "relayout/instrument/Instrument.h"

#include "SiteCollector.h"

#include "relayout/core/Files.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/Tooling.h>
#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace relayout {

namespace {

std::string cStringLiteral(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// What the trace writer needs of each site: struct size, offset, field index, in a helper.
std::string siteInfoList(const SiteMap& map) {
  std::string list;
  for (const SiteInfo& site : map.sites) {
    const StructInfo* s = map.findStruct(site.structName);
    unsigned field = 0;
    while (field < s->fields.size() && s->fields[field].name != site.field) ++field;
    bool inKernel = false;
    for (const FunctionInfo& f : map.functions) inKernel |= f.name == site.function && f.isKernel;
    list += fmt::format("{}{{{}, {}, {}, {}}}", site.id % 8 ? ", " : (site.id ? ", \\\n    " : ""), s->size,
                        site.offset, field, inKernel ? 0 : 1);
  }
  return list;
}

// The lines put in front of the instrumented source: what the runtime header needs to know about
// this unit, then a #line so that diagnostics and -lineinfo point at the original file.
std::string unitPreamble(const SiteMap& map, llvm::StringRef absolutePath, const InstrumentOptions& options) {
  std::string kernels;
  for (const std::string& name : map.kernels) kernels += (kernels.empty() ? "" : ", ") + cStringLiteral(name);
  std::string text = fmt::format(
      "// Instrumented by relayout from {0}; regenerate it with `relayout instrument` rather than editing.\n"
      "#define RELAYOUT_UNIT_SOURCE {1}\n"
      "#define RELAYOUT_UNIT_SHA256 \"{2}\"\n"
      "#define RELAYOUT_NUM_SITES {3}\n"
      "#define RELAYOUT_NUM_LOOPS {4}\n"
      "#define RELAYOUT_NUM_KERNELS {5}\n"
      "#define RELAYOUT_BLOCK_PERIOD {6}\n",
      map.sourcePath, cStringLiteral(map.sourcePath), map.sourceSha256, map.sites.size(), map.loops.size(),
      map.kernels.size(), map.blockPeriod);
  if (!kernels.empty()) text += "#define RELAYOUT_KERNEL_NAMES " + kernels + "\n";
  if (!map.sites.empty()) text += "#define RELAYOUT_SITE_INFO " + siteInfoList(map) + "\n";
  if (options.execPeriod > 1) text += fmt::format("#define RELAYOUT_EXEC_PERIOD {}\n", options.execPeriod);
  if (options.sampleLaunches) text += fmt::format("#define RELAYOUT_SAMPLE_LAUNCHES {}\n", options.sampleLaunches);
  if (options.traceCapacity)
    text += fmt::format("#define RELAYOUT_TRACE_CAPACITY {}\n#define RELAYOUT_TRACE_LAUNCHES {}\n",
                        options.traceCapacity, options.traceLaunches);
  return text + "#include \"relayout/rt.cuh\"\n#line 1 " + cStringLiteral(absolutePath) + "\n";
}

std::string absolutePath(llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return absolute.str().str();
}

// Clang saw the absolute path; locations in the site map use the path the user gave.
void useGivenPath(SiteMap& map, const std::string& absolute, const std::string& given) {
  auto fix = [&](SourceLocation& loc) {
    if (loc.file == absolute) loc.file = given;
  };
  for (StructInfo& s : map.structs) fix(s.location);
  for (FunctionInfo& f : map.functions) fix(f.location);
  for (LoopInfo& l : map.loops) fix(l.location);
  for (SiteInfo& s : map.sites) fix(s.location);
}

class InstrumentConsumer : public clang::ASTConsumer {
 public:
  InstrumentConsumer(clang::CompilerInstance& ci, std::string sourcePath, const InstrumentOptions& options,
                     std::vector<InstrumentedUnit>& results)
      : ci_(ci), sourcePath_(std::move(sourcePath)), options_(options), results_(results) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;  // Clang already said why
    clang::SourceManager& sm = context.getSourceManager();
    clang::Rewriter rewriter(sm, context.getLangOpts());
    SiteMap map;
    map.sourcePath = sourcePath_;
    map.sourceSha256 = sha256Hex(sm.getBufferData(sm.getMainFileID()));
    map.blockPeriod = options_.blockPeriod;
    SiteCollector(context, rewriter).collect(map);

    std::string body;
    if (const llvm::RewriteBuffer* buffer = rewriter.getRewriteBufferFor(sm.getMainFileID()))
      body.assign(buffer->begin(), buffer->end());
    else
      body = sm.getBufferData(sm.getMainFileID()).str();
    InstrumentedUnit unit;
    unit.sourcePath = sourcePath_;  // absolute here; instrumentSources puts back the path as given
    unit.instrumentedText = std::move(body);
    unit.siteMap = std::move(map);
    results_.push_back(std::move(unit));
  }

 private:
  clang::CompilerInstance& ci_;
  std::string sourcePath_;
  const InstrumentOptions& options_;
  std::vector<InstrumentedUnit>& results_;
};

class InstrumentAction : public clang::ASTFrontendAction {
 public:
  InstrumentAction(const InstrumentOptions& options, std::vector<InstrumentedUnit>& results)
      : options_(options), results_(results) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override {
    return std::make_unique<InstrumentConsumer>(ci, file.str(), options_, results_);
  }

 private:
  const InstrumentOptions& options_;
  std::vector<InstrumentedUnit>& results_;
};

class InstrumentActionFactory : public clang::tooling::FrontendActionFactory {
 public:
  InstrumentActionFactory(const InstrumentOptions& options, std::vector<InstrumentedUnit>& results)
      : options_(options), results_(results) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<InstrumentAction>(options_, results_);
  }

 private:
  const InstrumentOptions& options_;
  std::vector<InstrumentedUnit>& results_;
};

}  // namespace

llvm::Expected<std::vector<InstrumentedUnit>> instrumentSources(const std::vector<std::string>& sources,
                                                                const clang::tooling::CompilationDatabase& db,
                                                                const InstrumentOptions& options) {
  std::vector<InstrumentedUnit> results;
  clang::tooling::ClangTool tool(db, sources);
  InstrumentActionFactory factory(options, results);
  if (tool.run(&factory) != 0 || results.size() != sources.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "instrumentation failed: the sources do not compile (see the errors above)");
  // Keep the order and the spelling of the paths the user gave.
  std::vector<InstrumentedUnit> ordered;
  for (const std::string& source : sources) {
    std::string absolute = absolutePath(source);
    for (InstrumentedUnit& unit : results) {
      if (absolutePath(unit.sourcePath) != absolute) continue;
      unit.sourcePath = unit.siteMap.sourcePath = source;
      useGivenPath(unit.siteMap, absolute, source);
      unit.instrumentedText = unitPreamble(unit.siteMap, absolute, options) + unit.instrumentedText;
      ordered.push_back(std::move(unit));
      break;
    }
  }
  if (ordered.size() != sources.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "instrumentation failed: a source was not processed");
  return ordered;
}

}  // namespace relayout
