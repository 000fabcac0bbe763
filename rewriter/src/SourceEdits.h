// Edits on exact token ranges of the user's files. A token may be edited only where it is written:
// in the file itself or in a macro argument, never in a macro body (one body serves every
// expansion) nor in a system header.
#pragma once

#include "Facts.h"

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceManager.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace relayout::rw {

// A token as the raw lexer reads it from a file, where it is written.
struct RawToken {
  std::string text;
  unsigned offset;
};

class SourceEdits {
 public:
  SourceEdits(const clang::SourceManager& sm, const clang::LangOptions& lang, ProgramFacts& facts)
      : sm_(sm), lang_(lang), facts_(facts) {}

  // Where the token at `loc` is written in an editable file; nullopt for macro bodies, token
  // pastes, system headers and invalid locations.
  std::optional<clang::SourceLocation> written(clang::SourceLocation loc) const;
  // Both ends written in the same file, in order.
  bool writtenRange(clang::SourceRange tokens) const;

  unsigned tokenLength(clang::SourceLocation fileLoc) const;
  // The source text of a token range (empty when not written in one file).
  std::string text(clang::SourceRange tokens) const;
  // The same, also for tokens a macro call in the file expands to: the call as written.
  std::string expansionText(clang::SourceRange tokens) const;

  // Each returns false, recording nothing, when the tokens are not all written in one file.
  bool replaceTokens(clang::SourceRange tokens, const std::string& text, std::vector<Edit>& out);
  bool insertAfter(clang::SourceLocation token, const std::string& text, std::vector<Edit>& out);
  bool insertBefore(clang::SourceLocation token, const std::string& text, std::vector<Edit>& out);
  // Removes [end of `from`, end of `to`): what follows token `from` up to and including `to`.
  bool removeAfterUpTo(clang::SourceLocation from, clang::SourceLocation to, std::vector<Edit>& out);
  // Replaces tokens that may be a whole macro expansion (such as NULL).
  bool replaceExpansion(clang::SourceRange tokens, const std::string& text, std::vector<Edit>& out);
  // Replaces raw bytes [begin, begin+length) of a written location's file.
  Edit rawEdit(clang::SourceLocation fileLoc, unsigned length, const std::string& text);

  // Raw tokens of a written location's file from `begin` up to (not including) offset `end`, at
  // most `limit` of them.
  std::vector<RawToken> rawTokens(clang::SourceLocation begin, unsigned end, size_t limit = SIZE_MAX) const;
  // Removes each `const` written in [begin, end), with the blanks after it; `__attribute__((const))`
  // stays. Where a read-only view takes the place of a const element type.
  void dropConsts(clang::SourceLocation begin, unsigned end, std::vector<Edit>& out);

  // The file bytes between two written locations (same file), or nullopt.
  std::optional<llvm::StringRef> between(clang::SourceLocation begin, clang::SourceLocation end) const;
  llvm::StringRef fileData(clang::SourceLocation fileLoc) const;

  // Real path of a written location's file, remembered with its bytes for the final rewrite.
  std::string filePath(clang::SourceLocation fileLoc);

  const clang::SourceManager& sourceManager() const { return sm_; }
  const clang::LangOptions& langOptions() const { return lang_; }

 private:
  const clang::SourceManager& sm_;
  const clang::LangOptions& lang_;
  ProgramFacts& facts_;
  std::map<unsigned, std::string> pathOfFile_;  // FileID hash -> real path
};

// "line:col" of a byte offset in a file's bytes, for messages made once its unit is gone.
std::string position(const std::string& text, unsigned offset);

// The slice of `text` with its edits and, of each field form, the split edits where `split(field)`
// and the kept ones elsewhere; nullopt when two of them overlap.
std::optional<std::string> composeText(const ComposedText& text, const std::function<bool(const std::string&)>& split);

}  // namespace relayout::rw
