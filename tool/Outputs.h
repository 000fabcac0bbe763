// Writing results the way users can trust: everything a command produces is staged in memory and
// written only when the whole command succeeded, each file atomically.
#pragma once

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

class OutputSet {
 public:
  void add(std::string path, std::string contents);
  // Refuses to overwrite any of `protectedPaths` (the user's sources), then writes every file.
  llvm::Error commit(const std::vector<std::string>& protectedPaths) const;
  const std::vector<std::pair<std::string, std::string>>& files() const { return files_; }

 private:
  std::vector<std::pair<std::string, std::string>> files_;
};

// The same file, compared by what it resolves to.
bool samePath(const std::string& a, const std::string& b);

// A unified diff of `before` and `after` from `diff -u`, labelled a/PATH and b/PATH.
llvm::Expected<std::string> unifiedDiff(const std::string& path, const std::string& before, const std::string& after);

}  // namespace relayout
