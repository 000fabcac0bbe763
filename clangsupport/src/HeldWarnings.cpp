#include "relayout/clangsupport/HeldWarnings.h"

#include <clang/Basic/DiagnosticIDs.h>

namespace relayout {

HeldWarnings::HeldWarnings(llvm::raw_ostream& out) : heldStream_(heldText_), out_(out) {
  options_.ShowColors = out.has_colors();
  shown_ = std::make_unique<clang::TextDiagnosticPrinter>(out, options_);
  held_ = std::make_unique<clang::TextDiagnosticPrinter>(heldStream_, options_);
}

HeldWarnings::~HeldWarnings() = default;

void HeldWarnings::BeginSourceFile(const clang::LangOptions& lang, const clang::Preprocessor* pp) {
  shown_->BeginSourceFile(lang, pp);
  held_->BeginSourceFile(lang, pp);
}

void HeldWarnings::EndSourceFile() {
  shown_->EndSourceFile();
  held_->EndSourceFile();
}

void HeldWarnings::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  const bool clangsOwn = !clang::DiagnosticIDs::IsCustomDiag(info.getID());
  if (level == clang::DiagnosticsEngine::Note) {
    (holdingNotes_ ? held_ : shown_)->HandleDiagnostic(level, info);
    return;
  }
  holdingNotes_ = clangsOwn && level < clang::DiagnosticsEngine::Error;
  if (holdingNotes_) {
    held_->HandleDiagnostic(level, info);  // not counted: Clang's "N warnings generated" stays quiet
    return;
  }
  DiagnosticConsumer::HandleDiagnostic(level, info);
  shown_->HandleDiagnostic(level, info);
}

void HeldWarnings::release() {
  heldStream_.flush();
  out_ << heldText_;
  heldText_.clear();
}

}  // namespace relayout
