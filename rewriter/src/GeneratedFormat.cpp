#include "GeneratedFormat.h"

#include <clang/Tooling/Core/Replacement.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Regex.h>

#include <algorithm>
#include <map>
#include <vector>

namespace relayout::rw {

namespace {

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

// `T* p` against `T *p` in declarations: a type's last word or `>`, the stars, a name. Words
// before a dereference (`return *p`) are not types.
clang::format::FormatStyle::PointerAlignmentStyle pointerAlignmentOf(llvm::StringRef text) {
  static const llvm::Regex left("([A-Za-z_][A-Za-z0-9_]*|>)[*&]+ +[A-Za-z_]");
  static const llvm::Regex right("([A-Za-z_][A-Za-z0-9_]*|>) +[*&]+[A-Za-z_]");
  static const llvm::StringSet<> notTypes = {"return", "case", "else", "do", "sizeof", "delete", "throw", "co_return"};
  auto count = [&](const llvm::Regex& pattern) {
    unsigned n = 0;
    for (llvm::StringRef rest = text; !rest.empty();) {
      llvm::SmallVector<llvm::StringRef, 2> match;
      if (!pattern.match(rest, &match)) break;
      n += !notTypes.contains(match[1]);
      rest = rest.substr(match[0].data() - rest.data() + match[0].size());
    }
    return n;
  };
  const unsigned leftVotes = count(left), rightVotes = count(right);
  return leftVotes > rightVotes ? clang::format::FormatStyle::PAS_Left : clang::format::FormatStyle::PAS_Right;
}

unsigned columnLimitOf(llvm::StringRef text) {
  std::vector<size_t> lengths;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    if (!line.trim().empty()) lengths.push_back(line.rtrim().size());
  }
  if (lengths.empty()) return 80;
  std::sort(lengths.begin(), lengths.end());
  const size_t within = lengths[(lengths.size() - 1) * 90 / 100];
  for (unsigned limit : {80u, 100u, 120u})
    if (within <= limit) return limit;
  return static_cast<unsigned>(within);
}

bool hasClangFormatFile(llvm::StringRef file) {
  llvm::SmallString<256> folder(file);
  llvm::sys::fs::make_absolute(folder);
  llvm::sys::path::remove_filename(folder);
  for (llvm::StringRef dir = folder; !dir.empty(); dir = llvm::sys::path::parent_path(dir))
    for (const char* name : {".clang-format", "_clang-format"}) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, name);
      if (llvm::sys::fs::exists(candidate)) return true;
    }
  return false;
}

// The name clang-format reads the style for: a .cpp beside the file (it takes .cu for C++ as
// well, but a .clang-format with one section per language then picks the C++ one either way).
std::string asCpp(llvm::StringRef file) {
  llvm::SmallString<256> name(file);
  llvm::sys::path::replace_extension(name, ".cpp");
  return name.str().str();
}

std::string formatRanges(const clang::format::FormatStyle& style, const std::string& code,
                         llvm::ArrayRef<clang::tooling::Range> ranges, llvm::StringRef file) {
  const clang::tooling::Replacements replacements = clang::format::reformat(style, code, ranges, asCpp(file));
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

std::string withoutWhitespace(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    if (!llvm::isSpace(c)) out += c;
  return out;
}

}  // namespace

InferredStyle inferStyle(llvm::StringRef text) {
  return {indentationStep(text), pointerAlignmentOf(text), columnLimitOf(text)};
}

std::optional<clang::format::FormatStyle> styleFor(llvm::StringRef file, llvm::StringRef fileText) {
  const bool own = hasClangFormatFile(file);
  llvm::Expected<clang::format::FormatStyle> style =
      clang::format::getStyle(own ? "file" : "LLVM", asCpp(file), "LLVM", fileText);
  if (!style) {
    llvm::consumeError(style.takeError());
    return std::nullopt;
  }
  if (!own) {
    const InferredStyle inferred = inferStyle(fileText);
    style->IndentWidth = inferred.indentWidth;
    style->ContinuationIndentWidth = 2 * inferred.indentWidth;
    style->PointerAlignment = inferred.pointerAlignment;
    style->DerivePointerAlignment = false;
    style->ColumnLimit = inferred.columnLimit;
  }
  style->SortIncludes = clang::format::FormatStyle::SortIncludesOptions{};
  style->BreakStringLiterals = false;
  return *style;
}

std::string formatGenerated(const std::string& code, llvm::StringRef file, llvm::StringRef fileText) {
  const std::optional<clang::format::FormatStyle> style = styleFor(file, fileText);
  if (!style) return code;
  return formatRanges(*style, code, {clang::tooling::Range(0, static_cast<unsigned>(code.size()))}, file);
}

std::string rewrapChangedLines(llvm::StringRef original, const std::string& edited, llvm::StringRef file) {
  std::optional<clang::format::FormatStyle> style = styleFor(file, original);
  if (!style || style->ColumnLimit == 0 || edited == original) return edited;
  style->ReflowComments = clang::format::FormatStyle::RCS_Never;  // a comment's `//` would be new text
  llvm::StringSet<> keep;  // the original's lines, and changed lines clang-format could not wrap
  for (llvm::StringRef rest = original; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    keep.insert(line);
    rest = next;
  }
  // One line at a time, each time from the text as wrapped so far: a wrap may move the lines after it.
  std::string text = edited;
  for (bool wrapped = true; wrapped;) {
    wrapped = false;
    for (size_t at = 0; at < text.size() && !wrapped;) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(at, end - at);
      // A tab-indented line's width is not its length; such lines are left as they are.
      if (line.size() > style->ColumnLimit && !keep.contains(line) && line.find('\t') == std::string::npos) {
        keep.insert(line);
        const clang::tooling::Range range(static_cast<unsigned>(at), static_cast<unsigned>(line.size()));
        std::string attempt = formatRanges(*style, text, {range}, file);
        if (attempt != text && withoutWhitespace(attempt) == withoutWhitespace(text)) {
          text = std::move(attempt);
          wrapped = true;
        }
      }
      at = end + 1;
    }
  }
  return text;
}

}  // namespace relayout::rw
