#include "build/MpiCompiler.h"

#include "build/RunCaptured.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <map>
#include <optional>

namespace relayout {

bool isMpiCompilerWrapper(llvm::StringRef compiler) {
  const llvm::StringRef name = llvm::sys::path::filename(compiler).split('.').first;  // mpicxx.openmpi
  return llvm::is_contained({"mpicxx", "mpic++", "mpiCC", "mpicc", "mpiicpc", "mpiicpx", "mpiicx", "mpiicc"}, name);
}

namespace {

// The wrapper's standard output for `option`, or nullopt when it cannot be run or fails.
std::optional<std::string> askWrapper(const std::string& program, const std::string& option) {
  const CapturedRun run = runCaptured(program, {option}, /*secondsToWait=*/30);
  if (run.status != 0) return std::nullopt;
  return run.out;
}

// -I, -isystem and -D from a compile line (the compiler's own name and the rest ignored).
std::vector<std::string> includeAndMacroFlags(llvm::StringRef line) {
  llvm::SmallVector<llvm::StringRef, 16> words;
  line.split(words, ' ', -1, /*KeepEmpty=*/false);
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    llvm::StringRef word = words[i].trim();
    if (word.consume_front("-I") || word.consume_front("-isystem")) {
      if (word.empty() && i + 1 < words.size()) word = words[++i].trim();
      if (!word.empty()) out.insert(out.end(), {"-isystem", word.str()});
    } else if (word.starts_with("-D") && word.size() > 2) {
      out.push_back(word.str());
    }
  }
  return out;
}

}  // namespace

llvm::Expected<std::vector<std::string>> mpiCompileFlags(const std::string& compiler) {
  static std::map<std::string, std::vector<std::string>> answered;  // one question per compiler a run
  if (auto it = answered.find(compiler); it != answered.end()) return it->second;
  auto found = llvm::sys::path::has_parent_path(compiler) ? llvm::ErrorOr<std::string>(compiler)
                                                          : llvm::sys::findProgramByName(compiler);
  if (!found) return llvm::createStringError(llvm::inconvertibleErrorCode(), "'" + compiler + "' is not on PATH");
  for (const char* option : {"--showme:compile", "-compile_info"}) {
    if (std::optional<std::string> line = askWrapper(*found, option)) {
      std::vector<std::string> flags = includeAndMacroFlags(*line);
      answered[compiler] = flags;
      return flags;
    }
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + compiler + "' answers neither --showme:compile nor -compile_info");
}

}  // namespace relayout
