// Formatting of the code relayout generates (the device layout and its helpers): as the project
// formats its own code, so that a reviewer reads it as theirs. The user's code is left as written.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <string>

namespace relayout::rw {

// The style for generated code in `file`: the .clang-format (or _clang-format) found from its
// folder upward, else LLVM's with the indentation width `fileText` itself uses.
struct GeneratedStyle {
  std::string name;      // "file" when one was found, else "LLVM"
  unsigned indentWidth;  // LLVM's indentation replaced by the file's own (0: the found style's)
};
GeneratedStyle generatedStyleFor(llvm::StringRef file, llvm::StringRef fileText);

// `code` formatted in the style for `file`; unchanged when clang-format cannot read the style or
// the code (the compile check after the rewrite still sees every byte).
std::string formatGenerated(const std::string& code, llvm::StringRef file, llvm::StringRef fileText);

// The indentation step the text uses most after a line that opens a brace (2 when it has none).
unsigned indentationStep(llvm::StringRef text);

}  // namespace relayout::rw
