#include "Diagnostics.h"

#include <llvm/Support/WithColor.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

int reportError(llvm::Error err) {
  llvm::handleAllErrors(std::move(err), [](const llvm::ErrorInfoBase& info) {
    llvm::WithColor::error(llvm::errs(), "relayout") << info.message() << "\n";
  });
  return 1;
}

int reportError(const llvm::Twine& message) {
  llvm::WithColor::error(llvm::errs(), "relayout") << message << "\n";
  return 1;
}

void reportWarning(const llvm::Twine& message) {
  llvm::WithColor::warning(llvm::errs(), "relayout") << message << "\n";
}
void reportNote(const llvm::Twine& message) { llvm::WithColor::note(llvm::errs(), "relayout") << message << "\n"; }

}  // namespace relayout
