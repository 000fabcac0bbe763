// Formatting of what relayout writes into the user's files: the code it generates (the device
// layout and its helpers) in the project's own style, so that a reviewer reads it as theirs, and
// the user's lines it changed re-wrapped where they grew past the style's width. Other lines stay
// as written.
#pragma once

#include <clang/Format/Format.h>
#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>

namespace relayout::rw {

// What a file's own text says of its style, for projects without a .clang-format.
struct InferredStyle {
  unsigned indentWidth = 2;  // the step it indents by after an opening brace
  clang::format::FormatStyle::PointerAlignmentStyle pointerAlignment =
      clang::format::FormatStyle::PAS_Right;  // `T* p` (Left) or `T *p` (Right), by majority
  unsigned columnLimit = 80;                  // 80, 100 or 120, the first that 90% of its lines fit
};
InferredStyle inferStyle(llvm::StringRef text);

// The style for code in `file`: the .clang-format (or _clang-format) found from its folder upward,
// else LLVM's with what inferStyle reads from `fileText`. Nullopt when the found file cannot be read.
std::optional<clang::format::FormatStyle> styleFor(llvm::StringRef file, llvm::StringRef fileText);

// `code` formatted in the style for `file`; unchanged when clang-format cannot read the style or
// the code (the compile check after the rewrite still sees every byte).
std::string formatGenerated(const std::string& code, llvm::StringRef file, llvm::StringRef fileText);

// `edited` (`original` with relayout's edits) with each line that is not one of the original's and
// is longer than the style's column limit re-wrapped by clang-format. Only whitespace may change:
// a result whose other characters differ is dropped for `edited` itself.
std::string rewrapChangedLines(llvm::StringRef original, const std::string& edited, llvm::StringRef file);

}  // namespace relayout::rw
