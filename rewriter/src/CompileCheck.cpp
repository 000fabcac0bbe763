#include "CompileCheck.h"

#include "relayout/rewriter/Rewriter.h"

#include "Diagnostics.h"
#include "UseCollector.h"

#include <fmt/format.h>

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>

namespace relayout::rw {

namespace {

class QuietSyntaxOnly : public clang::SyntaxOnlyAction {
  bool BeginSourceFileAction(clang::CompilerInstance& compiler) override {
    compiler.setVerboseOutputStream(llvm::nulls());  // no "N errors generated"
    return SyntaxOnlyAction::BeginSourceFileAction(compiler);
  }
};

std::string realPathOf(const std::string& path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return path;
  return real.str().str();
}

}  // namespace

bool CompileCheck::isCuda(const std::string& source) const {
  // By its absolute path, as ClangTool asks: a database that infers commands for files it does not
  // list would otherwise make one up for the relative path.
  llvm::SmallString<256> absolute(source);
  llvm::sys::fs::make_absolute(absolute);
  for (const clang::tooling::CompileCommand& command : db_.getCompileCommands(absolute))
    if (std::find(command.CommandLine.begin(), command.CommandLine.end(), "--cuda-host-only") !=
        command.CommandLine.end())
      return true;
  return false;
}

std::optional<CompileFailure> CompileCheck::compile(const std::string& source, bool device,
                                                    const std::map<std::string, std::string>& replaced,
                                                    const std::multiset<std::string>* acceptOnly,
                                                    std::multiset<std::string>* accepted) {
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const auto& [path, text] : replaced)
    memory->addFile(path, /*ModificationTime=*/0, llvm::MemoryBuffer::getMemBufferCopy(text, path));
  overlay->pushOverlay(memory);
  clang::tooling::ClangTool tool(db_, {source}, std::make_shared<clang::PCHContainerOperations>(), overlay);
  if (device)
    tool.appendArgumentsAdjuster([](const clang::tooling::CommandLineArguments& args, llvm::StringRef) {
      clang::tooling::CommandLineArguments out;
      for (const std::string& arg : args) out.push_back(arg == "--cuda-host-only" ? "--cuda-device-only" : arg);
      return out;
    });
  std::string output;
  llvm::raw_string_ostream stream(output);
  clang::DiagnosticOptions options;
  ErrorPrinter printer(stream, options);
  if (acceptOnly) printer.acceptOnly(*acceptOnly);
  tool.setDiagnosticConsumer(&printer);
  tool.setPrintErrorMessage(false);
  auto factory = clang::tooling::newFrontendActionFactory<QuietSyntaxOnly>();
  const bool built = tool.run(factory.get()) == 0 || printer.onlyAcceptedErrors();
  if (accepted) *accepted = printer.accepted();
  if (built) return std::nullopt;
  CompileFailure failure;
  failure.side = device ? "device" : "host";
  failure.output = llvm::StringRef(output).rtrim().str();
  if (const auto& first = printer.firstError()) {
    failure.file = first->file.empty() ? std::string() : realPathOf(first->file);
    failure.line = first->line;
    failure.column = first->column;
    failure.message = first->message;
  }
  // Only what is needed to see the cause: the first errors and their notes.
  constexpr size_t kMaxLines = 16;
  size_t at = 0;
  for (size_t lines = 0; at != std::string::npos && lines < kMaxLines; ++lines)
    at = failure.output.find('\n', at == 0 ? 0 : at + 1);
  if (at != std::string::npos) failure.output = failure.output.substr(0, at) + "\n...";
  return failure;
}

std::optional<CompileFailure> CompileCheck::firstFailure(const std::map<std::string, std::string>& replaced) {
  for (const std::string& source : sources_)
    if (auto failure = compile(source, /*device=*/false, replaced)) return failure;
  for (const std::string& source : sources_) {
    if (!isCuda(source)) continue;
    std::multiset<std::string> accepted;
    std::optional<CompileFailure> failure = compile(source, /*device=*/true, replaced, nullptr, &accepted);
    if (!failure && accepted.empty()) continue;
    auto baseline = originalDevice_.find(source);
    if (baseline == originalDevice_.end()) {
      DeviceBaseline before;
      before.failure = compile(source, /*device=*/true, {}, nullptr, &before.accepted);
      if (before.failure) before.failure->original = true;
      baseline = originalDevice_.emplace(source, std::move(before)).first;
    }
    if (baseline->second.failure) return baseline->second.failure;
    if (failure) return failure;
    // Only the original's own errors that nvcc accepts: one the rewrite adds is a failure.
    if (std::includes(baseline->second.accepted.begin(), baseline->second.accepted.end(), accepted.begin(),
                      accepted.end()))
      continue;
    if (auto added = compile(source, /*device=*/true, replaced, &baseline->second.accepted)) return added;
  }
  return std::nullopt;
}

unsigned originalOffset(const std::vector<Edit>& edits, unsigned rewrittenOffset) {
  long long shift = 0;  // rewritten minus original, before the current edit
  for (const Edit& edit : edits) {
    long long start = edit.offset + shift;
    if (rewrittenOffset < start) break;
    if (rewrittenOffset < start + static_cast<long long>(edit.text.size())) return edit.offset;
    shift += static_cast<long long>(edit.text.size()) - edit.length;
  }
  return static_cast<unsigned>(std::max(0LL, rewrittenOffset - shift));
}

static unsigned offsetOf(const std::string& text, unsigned line, unsigned column) {
  size_t at = 0;
  for (unsigned l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return text.size();
    ++at;
  }
  return static_cast<unsigned>(std::min(text.size(), at + (column > 0 ? column - 1 : 0)));
}

// Spaces under the text before the caret, tabs kept so that the caret lines up.
static std::string caretIndent(std::string before) {
  for (char& c : before)
    if (c != '\t') c = ' ';
  return before;
}

std::string compileRefusal(const std::string& structName, const CompileFailure& failure,
                           const std::map<std::string, std::string>& originals,
                           const std::map<std::string, std::vector<Edit>>& editsByFile,
                           const std::string& fallbackFile, unsigned fallback) {
  std::string file = fallbackFile;
  unsigned offset = fallback;
  if (auto original = originals.find(failure.file); original != originals.end()) {
    auto edits = editsByFile.find(failure.file);
    std::string rewritten = original->second;
    static const std::vector<Edit> none;
    // The original's own failure lies in the original text.
    const std::vector<Edit>& applied = edits == editsByFile.end() || failure.original ? none : edits->second;
    for (auto it = applied.rbegin(); it != applied.rend(); ++it) rewritten.replace(it->offset, it->length, it->text);
    file = failure.file;
    offset = originalOffset(applied, offsetOf(rewritten, failure.line, failure.column));
  }
  const std::string& text = originals.at(file);
  size_t lineStart = offset == 0 ? 0 : text.rfind('\n', offset - 1);
  lineStart = lineStart == std::string::npos || offset == 0 ? 0 : lineStart + 1;
  size_t lineEnd = std::min(text.find('\n', offset), text.size());
  unsigned line = 1 + static_cast<unsigned>(std::count(text.begin(), text.begin() + lineStart, '\n'));
  std::string message =
      failure.original
          ? refusalPrefix(structName) + "its rewrite cannot be checked on the " + failure.side +
                " side: Clang cannot compile this source for the " + failure.side +
                " as it is (nvcc may), and code only that side compiles (#if __CUDA_ARCH__) was not seen: " +
                failure.message
          : refusalPrefix(structName) + "its rewritten code does not compile on the " + failure.side +
                " side: " + failure.message;
  return fmt::format("{}:{}:{}: warning: {}\n{:>5} | {}\n      | {}^\n{}: note: Clang's errors in the {} "
                     "text:\n{}",
                     file, line, offset - lineStart + 1, message, line, text.substr(lineStart, lineEnd - lineStart),
                     caretIndent(text.substr(lineStart, offset - lineStart)), file,
                     failure.original ? "original" : "rewritten", failure.output);
}

}  // namespace relayout::rw

namespace relayout {

std::optional<std::string> deviceSideError(const clang::tooling::CompilationDatabase& db, const std::string& source) {
  rw::CompileCheck check(db, {source});
  if (!check.isCuda(source)) return std::nullopt;
  std::optional<rw::CompileFailure> failure = check.compile(source, /*device=*/true, {});
  if (!failure) return std::nullopt;
  return fmt::format("{}:{}:{}: {}", failure->file, failure->line, failure->column, failure->message);
}

}  // namespace relayout
