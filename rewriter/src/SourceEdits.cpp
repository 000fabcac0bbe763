#include "SourceEdits.h"

#include <clang/Basic/FileManager.h>
#include <clang/Lex/Lexer.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>

namespace relayout::rw {

std::optional<clang::SourceLocation> SourceEdits::written(clang::SourceLocation loc) const {
  if (loc.isInvalid()) return std::nullopt;
  // A macro argument's tokens are spelled where the macro is used; a body's are not.
  clang::SourceLocation spelling = sm_.getSpellingLoc(loc);
  if (loc.isMacroID() && sm_.getFileLoc(loc) != spelling) return std::nullopt;
  clang::FileID file = sm_.getFileID(spelling);
  if (!sm_.getFileEntryRefForID(file)) return std::nullopt;  // scratch space of ## and the like
  if (sm_.isInSystemHeader(spelling)) return std::nullopt;
  return spelling;
}

bool SourceEdits::writtenRange(clang::SourceRange tokens) const {
  auto begin = written(tokens.getBegin()), end = written(tokens.getEnd());
  return begin && end && sm_.getFileID(*begin) == sm_.getFileID(*end) &&
         sm_.getFileOffset(*begin) <= sm_.getFileOffset(*end);
}

unsigned SourceEdits::tokenLength(clang::SourceLocation fileLoc) const {
  return clang::Lexer::MeasureTokenLength(fileLoc, sm_, lang_);
}

llvm::StringRef SourceEdits::fileData(clang::SourceLocation fileLoc) const {
  return sm_.getBufferData(sm_.getFileID(fileLoc));
}

std::optional<llvm::StringRef> SourceEdits::between(clang::SourceLocation begin, clang::SourceLocation end) const {
  if (sm_.getFileID(begin) != sm_.getFileID(end)) return std::nullopt;
  unsigned b = sm_.getFileOffset(begin), e = sm_.getFileOffset(end);
  if (b > e) return std::nullopt;
  return fileData(begin).substr(b, e - b);
}

std::string SourceEdits::text(clang::SourceRange tokens) const {
  if (!writtenRange(tokens)) return "";
  clang::SourceLocation begin = *written(tokens.getBegin()), end = *written(tokens.getEnd());
  auto t = between(begin, end.getLocWithOffset(tokenLength(end)));
  return t ? t->str() : "";
}

std::string SourceEdits::expansionText(clang::SourceRange tokens) const {
  if (std::string written = text(tokens); !written.empty()) return written;
  clang::CharSourceRange range =
      clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(tokens), sm_, lang_);
  if (range.isInvalid() || sm_.isInSystemHeader(range.getBegin())) return "";
  auto t = between(range.getBegin(), range.getEnd());
  return t ? t->str() : "";
}

std::string SourceEdits::filePath(clang::SourceLocation fileLoc) {
  clang::FileID id = sm_.getFileID(fileLoc);
  auto known = pathOfFile_.find(id.getHashValue());
  if (known != pathOfFile_.end()) return known->second;
  clang::OptionalFileEntryRef entry = sm_.getFileEntryRefForID(id);
  std::string path(entry->getFileEntry().tryGetRealPathName());
  if (path.empty()) {
    llvm::SmallString<256> absolute(entry->getName());
    llvm::sys::fs::make_absolute(absolute);
    llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
    path = absolute.str().str();
  }
  pathOfFile_[id.getHashValue()] = path;
  facts_.contents.emplace(path, sm_.getBufferData(id).str());
  return path;
}

Edit SourceEdits::rawEdit(clang::SourceLocation fileLoc, unsigned length, const std::string& text) {
  return Edit{filePath(fileLoc), sm_.getFileOffset(fileLoc), length, 0, text};
}

std::vector<RawToken> SourceEdits::rawTokens(clang::SourceLocation begin, unsigned end, size_t limit) const {
  llvm::StringRef data = sm_.getBufferData(sm_.getFileID(begin));
  clang::Lexer lexer(sm_.getLocForStartOfFile(sm_.getFileID(begin)), lang_, data.begin(),
                     data.begin() + sm_.getFileOffset(begin), data.end());
  std::vector<RawToken> tokens;
  clang::Token token;
  while (!lexer.LexFromRawLexer(token) && token.isNot(clang::tok::eof)) {
    unsigned offset = sm_.getFileOffset(token.getLocation());
    if (offset >= end || tokens.size() == limit) break;
    tokens.push_back({data.substr(offset, token.getLength()).str(), offset});
  }
  return tokens;
}

void SourceEdits::dropConsts(clang::SourceLocation begin, unsigned end, std::vector<Edit>& out) {
  const unsigned beginOffset = sm_.getFileOffset(begin);
  std::vector<RawToken> tokens = rawTokens(begin, end);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].text != "const" || (i > 0 && tokens[i - 1].text == "(")) continue;
    unsigned next = i + 1 < tokens.size() ? tokens[i + 1].offset : end;
    out.push_back(rawEdit(begin.getLocWithOffset(int(tokens[i].offset - beginOffset)), next - tokens[i].offset, ""));
  }
}

bool SourceEdits::replaceTokens(clang::SourceRange tokens, const std::string& text, std::vector<Edit>& out) {
  if (!writtenRange(tokens)) return false;
  clang::SourceLocation begin = *written(tokens.getBegin()), end = *written(tokens.getEnd());
  unsigned length = sm_.getFileOffset(end) + tokenLength(end) - sm_.getFileOffset(begin);
  out.push_back(rawEdit(begin, length, text));
  return true;
}

bool SourceEdits::replaceExpansion(clang::SourceRange tokens, const std::string& text, std::vector<Edit>& out) {
  if (writtenRange(tokens)) return replaceTokens(tokens, text, out);
  clang::CharSourceRange range =
      clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(tokens), sm_, lang_);
  if (range.isInvalid() || sm_.isInSystemHeader(range.getBegin())) return false;
  unsigned begin = sm_.getFileOffset(range.getBegin()), end = sm_.getFileOffset(range.getEnd());
  out.push_back(rawEdit(range.getBegin(), end - begin, text));
  return true;
}

bool SourceEdits::insertAfter(clang::SourceLocation token, const std::string& text, std::vector<Edit>& out) {
  auto loc = written(token);
  if (!loc) return false;
  out.push_back(rawEdit(loc->getLocWithOffset(tokenLength(*loc)), 0, text));
  return true;
}

bool SourceEdits::insertBefore(clang::SourceLocation token, const std::string& text, std::vector<Edit>& out) {
  auto loc = written(token);
  if (!loc) return false;
  out.push_back(rawEdit(*loc, 0, text));
  return true;
}

bool SourceEdits::removeAfterUpTo(clang::SourceLocation from, clang::SourceLocation to, std::vector<Edit>& out) {
  if (!writtenRange({from, to})) return false;
  clang::SourceLocation f = *written(from), t = *written(to);
  clang::SourceLocation begin = f.getLocWithOffset(tokenLength(f));
  unsigned end = sm_.getFileOffset(t) + tokenLength(t);
  if (sm_.getFileOffset(begin) > end) return false;
  out.push_back(rawEdit(begin, end - sm_.getFileOffset(begin), ""));
  return true;
}

std::string position(const std::string& text, unsigned offset) {
  unsigned line = 1, col = 1;
  for (unsigned i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

std::optional<std::string> composeText(const ComposedText& text, const std::function<bool(const std::string&)>& split) {
  std::vector<Edit> edits = text.edits;
  for (const FieldForm& form : text.forms) {
    const std::vector<Edit>& chosen = split(form.field) ? form.split : form.kept;
    edits.insert(edits.end(), chosen.begin(), chosen.end());
  }
  std::sort(edits.begin(), edits.end());
  edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].offset < edits[i - 1].offset + edits[i - 1].length) return std::nullopt;
  std::string out = text.slice;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->offset - text.from, it->length, it->text);
  return out;
}

}  // namespace relayout::rw
