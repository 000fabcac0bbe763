// Writing results the way users can trust: everything a command produces is staged in memory and
// written only when the whole command succeeded, all files or none (OutputTransaction.h).
#pragma once

#include "outputs/OutputTransaction.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <vector>

namespace relayout {

class OutputSet {
 public:
  // `modeOf`: a new file gets that file's permissions (a source's FILE.orig gets the source's).
  void add(std::string path, std::string contents, const std::string& modeOf = "");
  // An input the command read: refused as a destination.
  void protect(std::string path) { protected_.push_back(std::move(path)); }
  // Where the transaction's journal goes (default: the first file's folder).
  void setJournalFolder(std::string folder) { journalFolder_ = std::move(folder); }
  // Refuses to overwrite any input (`inputs` and the protected paths) or to write one file twice,
  // then writes every file in one transaction.
  llvm::Error commit(const std::vector<std::string>& inputs = {});
  // Removes the new files and folders commit() created, for a command whose later step failed.
  void removeCommitted();
  const std::vector<StagedOutput>& files() const { return files_; }

 private:
  std::vector<StagedOutput> files_;
  std::vector<std::string> protected_;
  std::string journalFolder_;
  CommittedOutputs committed_;
};

// The same file, compared by what it resolves to.
bool samePath(const std::string& a, const std::string& b);

// `path` made absolute, without . and .. (symbolic links are kept).
std::string absolutePath(llvm::StringRef path);

// The deepest folder that holds every one of these absolute paths.
std::string commonFolder(const std::vector<std::string>& absolutePaths);

// `path` relative to `folder` (both absolute), or nothing when it is not inside it.
std::optional<std::string> pathInside(llvm::StringRef folder, llvm::StringRef path);

// `path` as seen from the current working folder (with ../ when it lies outside).
std::string pathFromWorkingFolder(llvm::StringRef path);

// An option that names one output must not be given twice (LLVM would keep the last one), nor
// empty (`-o ""` would fall back to the default place).
llvm::Error checkGivenOnce(const llvm::cl::opt<std::string>& option);

// A unified diff of `before` and `after` from `diff -u`, labelled a/PATH and b/PATH.
llvm::Expected<std::string> unifiedDiff(const std::string& path, const std::string& before, const std::string& after);

}  // namespace relayout
