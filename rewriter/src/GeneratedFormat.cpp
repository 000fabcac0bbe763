#include "GeneratedFormat.h"

#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <map>

namespace relayout::rw {

unsigned indentationStep(llvm::StringRef text) {
  std::map<unsigned, unsigned> votes;  // step -> lines that indent by it
  llvm::StringRef previous;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    if (line.trim().empty()) continue;
    if (previous.rtrim().ends_with("{")) {
      const size_t outer = previous.find_first_not_of(' '), inner = line.find_first_not_of(' ');
      if (inner > outer && inner - outer <= 8 && line.find('\t') == llvm::StringRef::npos) ++votes[inner - outer];
    }
    previous = line;
  }
  unsigned best = 2, most = 0;
  for (const auto& [step, count] : votes)
    if (count > most) best = step, most = count;
  return best;
}

GeneratedStyle generatedStyleFor(llvm::StringRef file, llvm::StringRef fileText) {
  llvm::SmallString<256> folder(file);
  llvm::sys::fs::make_absolute(folder);
  llvm::sys::path::remove_filename(folder);
  for (llvm::StringRef dir = folder; !dir.empty(); dir = llvm::sys::path::parent_path(dir)) {
    for (const char* name : {".clang-format", "_clang-format"}) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, name);
      if (llvm::sys::fs::exists(candidate)) return {"file", 0};
    }
  }
  return {"LLVM", indentationStep(fileText)};
}

std::string formatGenerated(const std::string& code, llvm::StringRef file, llvm::StringRef fileText) {
  const GeneratedStyle chosen = generatedStyleFor(file, fileText);
  // The style is read for a .cpp name beside the file: clang-format takes .cu files for C++ as
  // well, but a .clang-format with one section per language then picks the C++ one either way.
  llvm::SmallString<256> asCpp(file);
  llvm::sys::path::replace_extension(asCpp, ".cpp");
  llvm::Expected<clang::format::FormatStyle> style = clang::format::getStyle(chosen.name, asCpp, "LLVM", code);
  if (!style) {
    llvm::consumeError(style.takeError());
    return code;
  }
  if (chosen.indentWidth) style->IndentWidth = chosen.indentWidth;
  style->SortIncludes = clang::format::FormatStyle::SortIncludesOptions{};
  const clang::tooling::Replacements replacements =
      clang::format::reformat(*style, code, {clang::tooling::Range(0, static_cast<unsigned>(code.size()))}, asCpp);
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

}  // namespace relayout::rw
