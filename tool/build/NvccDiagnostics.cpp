#include "build/NvccDiagnostics.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Regex.h>

#include <set>

namespace relayout {

namespace {

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// "FILE(LINE): KIND[ #NUMBER-D]: message", KIND being error, warning, remark, note, ...
std::string diagnosticKind(llvm::StringRef line) {
  static const llvm::Regex header("^.+\\([0-9]+\\): ([a-z ]+)( #[0-9]+(-[A-Z])?)?: ");
  llvm::SmallVector<llvm::StringRef, 4> match;
  return header.match(line, &match) ? match[1].str() : "";
}

bool isErrorKind(llvm::StringRef kind) { return kind.ends_with("error"); }

// What one entry of the output is: a diagnostic with its notes and the source lines under them, or
// any other line (with the blank lines after it).
struct Entry {
  std::string text;
  bool diagnostic = false;
  bool error = false;
};

std::vector<Entry> entriesOf(llvm::StringRef text) {
  std::vector<Entry> entries;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  text.split(lines, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (llvm::StringRef line : lines) {
    const std::string kind = diagnosticKind(line);
    const bool continues = !entries.empty() && (kind == "note" || line.empty() || line.starts_with(" ") ||
                                                (!entries.back().diagnostic && line.trim().empty()));
    if (!continues || (!kind.empty() && kind != "note")) {
      entries.push_back({"", !kind.empty() && kind != "note", isErrorKind(kind)});
    }
    entries.back().text += line.str() + "\n";
  }
  return entries;
}

}  // namespace

std::string withoutMirror(std::string text, const std::string& mirror) {
  replaceAll(text, mirror + "/", "/");
  return text;
}

std::string tidyNvccDiagnostics(std::string_view given, const NvccDiagnosticPaths& paths) {
  std::string text = withoutMirror(std::string(given), paths.mirror);
  for (const auto& [absolute, asGiven] : paths.absoluteToGiven)
    if (absolute != asGiven) {
      replaceAll(text, absolute + "(", asGiven + "(");
      replaceAll(text, "\"" + absolute + "\"", "\"" + asGiven + "\"");
    }
  static const llvm::Regex summary("^([0-9]+) errors? detected in (the compilation of .*)$");
  std::set<std::string> printed;
  std::set<std::string> errors;  // the distinct errors since the last summary line
  std::string out;
  for (const Entry& entry : entriesOf(text)) {
    llvm::SmallVector<llvm::StringRef, 3> match;
    if (!entry.diagnostic && summary.match(llvm::StringRef(entry.text).rtrim(), &match)) {
      const size_t count = errors.empty() ? std::stoul(match[1].str()) : errors.size();
      out += std::to_string(count) + (count == 1 ? " error" : " errors") + " detected in " + match[2].str() + "\n";
      errors.clear();
      continue;
    }
    if (entry.error) errors.insert(entry.text);
    // Only diagnostics and nvcc's advice under them repeat because of the copies; other lines
    // (ptxas -v's) may repeat on their own.
    const bool repeatable = entry.diagnostic || llvm::StringRef(entry.text).starts_with("Remark: ");
    if (repeatable && !printed.insert(entry.text).second) continue;
    out += entry.text;
  }
  return out;
}

}  // namespace relayout
