// --help wrapped to the terminal. LLVM's option parser prints each option's description on one
// line (some ran to 800 columns) and then exits; relayout catches what it prints and wraps it.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <string>

namespace relayout {

// `text` with every line longer than `width` broken at spaces: an option's description continues
// under its own start ("  --name=<x>  - Description"), other lines under their indentation. A
// word longer than the room left stays whole on a line of its own.
std::string wrapHelpText(llvm::StringRef text, unsigned width);

// When arguments before `end` ask for help (--help, --help-hidden, --help-list, one dash or two),
// standard output goes to a temporary file until the process exits, then comes out wrapped to the
// terminal's width ($COLUMNS, else the terminal's). Into a pipe or a file without $COLUMNS it is
// left as LLVM prints it, one line per option, for tools that read it. Call before parsing.
void wrapHelpOutputIfAsked(int end, char** argv);

}  // namespace relayout
