#include "relayout/instrument/FunctionHash.h"

#include "relayout/core/Files.h"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace relayout {

std::string functionTokenHash(const clang::FunctionDecl& function) {
  const clang::ASTContext& context = function.getASTContext();
  const clang::SourceManager& sm = context.getSourceManager();
  clang::CharSourceRange range = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(function.getSourceRange()), sm, context.getLangOpts());
  if (range.isInvalid()) return "";
  auto [file, begin] = sm.getDecomposedLoc(range.getBegin());
  auto [endFile, end] = sm.getDecomposedLoc(range.getEnd());
  if (file != endFile || end < begin) return "";
  llvm::StringRef buffer = sm.getBufferData(file);
  // A raw lexer over the function's own bytes: no macro expansion, so every unit that includes a
  // header computes the same hash whatever it defines.
  clang::Lexer lexer(sm.getLocForStartOfFile(file), context.getLangOpts(), buffer.begin(), buffer.begin() + begin,
                     buffer.begin() + end);
  std::string tokens;
  clang::Token token;
  while (!lexer.LexFromRawLexer(token)) {
    tokens += clang::Lexer::getSpelling(token, sm, context.getLangOpts());
    tokens += ' ';
  }
  if (token.isNot(clang::tok::eof)) tokens += clang::Lexer::getSpelling(token, sm, context.getLangOpts());
  return sha256Hex(tokens).substr(0, 16);
}

}  // namespace relayout
