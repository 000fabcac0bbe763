#include "Diagnostics.h"

#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>

namespace relayout::rw {

DiagRenderer::DiagRenderer(clang::ASTContext& context) : stream_(buffer_) {
  options_.ShowColors = false;
  printer_ = std::make_unique<clang::TextDiagnosticPrinter>(stream_, options_);
  engine_ = std::make_unique<clang::DiagnosticsEngine>(clang::DiagnosticIDs::create(), options_, printer_.get(),
                                                       /*ShouldOwnClient=*/false);
  engine_->setSourceManager(&context.getSourceManager());
  printer_->BeginSourceFile(context.getLangOpts(), nullptr);
  warningId_ = engine_->getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0");
  noteId_ = engine_->getCustomDiagID(clang::DiagnosticsEngine::Note, "%0");
}

DiagRenderer::~DiagRenderer() { printer_->EndSourceFile(); }

std::string DiagRenderer::warning(clang::SourceLocation loc, const std::string& message, clang::SourceRange range) {
  return render(clang::DiagnosticsEngine::Warning, loc, message, range);
}

std::string DiagRenderer::note(clang::SourceLocation loc, const std::string& message, clang::SourceRange range) {
  // The engine drops a note unless a shown diagnostic came just before; that warning is discarded.
  render(clang::DiagnosticsEngine::Warning, loc, "", {});
  return render(clang::DiagnosticsEngine::Note, loc, message, range);
}

std::string DiagRenderer::render(clang::DiagnosticsEngine::Level level, clang::SourceLocation loc,
                                 const std::string& message, clang::SourceRange range) {
  {
    clang::DiagnosticBuilder builder = engine_->Report(loc, level == clang::DiagnosticsEngine::Note ? noteId_ : warningId_);
    builder << message;
    if (range.isValid()) builder << clang::CharSourceRange::getTokenRange(range);
  }  // emitted here
  stream_.flush();
  std::string text = std::move(buffer_);
  buffer_.clear();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

bool nvccOnlyWarns(const clang::Diagnostic& info) {
  // err_ref_bad_target's arguments: the callee's target, function or variable, its name, the
  // caller's target (clang::CUDAFunctionTarget: Device, Global, Host, HostDevice).
  constexpr uint64_t kHost = 2, kHostDevice = 3, kFunction = 0;
  return info.getID() == clang::diag::err_ref_bad_target && info.getNumArgs() >= 4 &&
         info.getRawArg(0) == kHost && info.getRawArg(1) == kFunction && info.getRawArg(3) == kHostDevice;
}

void ErrorPrinter::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
  const bool error = level >= clang::DiagnosticsEngine::Error;
  llvm::SmallString<128> message;
  if (error) info.FormatDiagnostic(message);
  const std::string text = message.str().str();
  const bool accepted = error && nvccOnlyWarns(info) &&
                        (!acceptOnly_ || accepted_.count(text) < acceptOnly_->count(text));
  if (accepted) accepted_.insert(text);
  const bool counts = error && !accepted;
  if (counts) showing_ = true;
  else if (level != clang::DiagnosticsEngine::Note) showing_ = false;
  if (counts && !firstError_) {
    Place place;
    place.message = text;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::PresumedLoc presumed = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()), /*UseLineDirectives=*/false);
      if (presumed.isValid()) {
        place.file = presumed.getFilename();
        place.line = presumed.getLine();
        place.column = presumed.getColumn();
      }
    }
    firstError_ = std::move(place);
  }
  if (showing_) TextDiagnosticPrinter::HandleDiagnostic(level, info);
  else DiagnosticConsumer::HandleDiagnostic(level, info);
}

}  // namespace relayout::rw
