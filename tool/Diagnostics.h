// How relayout prints what goes wrong: "relayout: error: MESSAGE" (warning, note), in colour on a
// terminal, on standard error. Every folder of the tool reports through these.
#pragma once

#include <llvm/ADT/Twine.h>
#include <llvm/Support/Error.h>

namespace relayout {

// Prints the error and returns exit code 1.
int reportError(llvm::Error err);
int reportError(const llvm::Twine& message);
void reportWarning(const llvm::Twine& message);
void reportNote(const llvm::Twine& message);

}  // namespace relayout
