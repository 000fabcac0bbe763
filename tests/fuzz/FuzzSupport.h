// Shared by the libFuzzer targets: what every reader must do with any input (accept it, or refuse it
// with an error that names the file), and the analysis target's multi-file inputs.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace relayout::fuzz {

// A property the library promises was broken: report it and stop, so libFuzzer saves the input.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "relayout fuzz: %s\n", what.c_str());
  std::abort();
}

// A refused input is fine; its error must name the file it came from (the driver prints it as is).
inline void expectFileError(llvm::Error err, llvm::StringRef path) {
  std::string message = llvm::toString(std::move(err));
  if (!llvm::StringRef(message).starts_with(path)) broken("error does not name " + path.str() + ": " + message);
}

// The analysis target reads several files from one input: parts separated by this line. '#' cannot
// appear in JSON outside a string, so a JSON part never holds the separator by accident.
inline constexpr llvm::StringLiteral kPartSeparator = "\n#relayout-fuzz-part#\n";

inline std::vector<llvm::StringRef> splitParts(llvm::StringRef input) {
  std::vector<llvm::StringRef> parts;
  while (true) {
    auto [part, rest] = input.split(kPartSeparator);
    parts.push_back(part);
    if (part.size() == input.size()) return parts;
    input = rest;
  }
}

}  // namespace relayout::fuzz
