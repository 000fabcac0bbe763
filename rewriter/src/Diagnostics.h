// Renders relayout's own warnings and notes the way clang prints its diagnostics (file:line:col,
// the source line, a caret and the ranges), into strings: whether a warning matters is known only
// after every translation unit was read, when their source managers are gone.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>

#include <memory>
#include <optional>
#include <set>
#include <string>

namespace relayout::rw {

class DiagRenderer {
 public:
  explicit DiagRenderer(clang::ASTContext& context);
  ~DiagRenderer();

  std::string warning(clang::SourceLocation loc, const std::string& message, clang::SourceRange range = {});
  std::string note(clang::SourceLocation loc, const std::string& message, clang::SourceRange range = {});

 private:
  std::string render(clang::DiagnosticsEngine::Level level, clang::SourceLocation loc, const std::string& message,
                     clang::SourceRange range);

  std::string buffer_;
  llvm::raw_string_ostream stream_;
  clang::DiagnosticOptions options_;
  std::unique_ptr<clang::TextDiagnosticPrinter> printer_;
  std::unique_ptr<clang::DiagnosticsEngine> engine_;
  unsigned warningId_ = 0, noteId_ = 0;
};

// Clang's errors that nvcc only warns about: a __host__ __device__ function calling a __host__
// function (nvcc's #20011-D, #20014-D). nvcc builds it, the call compiled as unreachable device
// code: the program works as long as the call never runs there. Clang reports them where the
// function is emitted for the device, after the whole unit is parsed, so the syntax tree is complete.
bool nvccOnlyWarns(const clang::Diagnostic& info);

// Keeps the compiler's errors (and their notes) for a failure message, and where the first error
// is; warnings of the user's code are not relayout's business.
class ErrorPrinter : public clang::TextDiagnosticPrinter {
 public:
  using TextDiagnosticPrinter::TextDiagnosticPrinter;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;

  struct Place {
    std::string file;  // as Clang opened it
    unsigned line = 0, column = 0;
    std::string message;
  };
  // The first error since construction (or since the last clear), not counting those nvcc accepts.
  const std::optional<Place>& firstError() const { return firstError_; }
  void clearFirstError() { firstError_.reset(); }
  // Errors nvcc only warns about (nvccOnlyWarns) are accepted: all of them, or after this call only
  // as many of each message as `messages` holds (the original's: nvcc compiles a host function
  // called on the device as unreachable code, so a rewrite must not add such a call, not even one
  // more of a function the original already calls so).
  void acceptOnly(std::multiset<std::string> messages) { acceptOnly_ = std::move(messages); }
  // Whether every error seen was accepted, so that the code builds with nvcc although Clang reports
  // errors; and the accepted errors' messages, one per error.
  bool onlyAcceptedErrors() const { return !accepted_.empty() && !firstError_; }
  const std::multiset<std::string>& accepted() const { return accepted_; }

 private:
  bool showing_ = false;
  std::optional<std::multiset<std::string>> acceptOnly_;
  std::multiset<std::string> accepted_;
  std::optional<Place> firstError_;
};

}  // namespace relayout::rw
