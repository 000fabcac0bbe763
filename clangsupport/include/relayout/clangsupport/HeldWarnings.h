// A diagnostic consumer for parses that run beside another compiler (the nvcc wrapper): Clang's
// own warnings and remarks are held back, since the build's compiler reports what it thinks of the
// code and Clang's opinion would only be noise (-Wstring-plus-int on code nvcc accepts). They are
// printed, with the errors, when the parse fails. relayout's own diagnostics (custom IDs) pass.
#pragma once

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>

namespace relayout {

class HeldWarnings : public clang::DiagnosticConsumer {
 public:
  // Shown diagnostics go to `out`.
  explicit HeldWarnings(llvm::raw_ostream& out);
  ~HeldWarnings() override;

  void BeginSourceFile(const clang::LangOptions& lang, const clang::Preprocessor* pp) override;
  void EndSourceFile() override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override;

  // Prints what was held (when the parse failed and the held warnings may explain why), once.
  void release();

 private:
  clang::DiagnosticOptions options_;
  std::string heldText_;
  llvm::raw_string_ostream heldStream_;
  std::unique_ptr<clang::TextDiagnosticPrinter> shown_;
  std::unique_ptr<clang::TextDiagnosticPrinter> held_;
  llvm::raw_ostream& out_;
  bool holdingNotes_ = false;  // the last warning was held: its notes follow it
};

}  // namespace relayout
