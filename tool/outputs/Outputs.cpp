#include "outputs/Outputs.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <llvm/ADT/ScopeExit.h>
#include <llvm/Support/Program.h>

#include <set>

namespace relayout {

void OutputSet::add(std::string path, std::string contents, const std::string& modeOf) {
  files_.push_back({absolutePath(path), std::move(contents), modeOf.empty() ? "" : absolutePath(modeOf)});
}

std::string absolutePath(llvm::StringRef path) {
  llvm::SmallString<256> out(path);
  llvm::sys::fs::make_absolute(out);
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  return out.str().str();
}

bool samePath(const std::string& a, const std::string& b) { return resolvedPath(a) == resolvedPath(b); }

std::string commonFolder(const std::vector<std::string>& absolutePaths) {
  if (absolutePaths.empty()) return absolutePath(".");
  std::vector<llvm::StringRef> common(llvm::sys::path::begin(absolutePaths.front()),
                                      llvm::sys::path::end(absolutePaths.front()));
  common.pop_back();  // the file name
  for (const std::string& p : absolutePaths) {
    std::vector<llvm::StringRef> parts(llvm::sys::path::begin(p), llvm::sys::path::end(p));
    parts.pop_back();
    size_t same = 0;
    while (same < common.size() && same < parts.size() && common[same] == parts[same]) ++same;
    common.resize(same);
  }
  llvm::SmallString<256> out;
  for (llvm::StringRef part : common) llvm::sys::path::append(out, part);
  return out.empty() ? "/" : out.str().str();
}

std::optional<std::string> pathInside(llvm::StringRef folder, llvm::StringRef path) {
  std::string prefix = folder.str();
  if (!llvm::StringRef(prefix).ends_with("/")) prefix += "/";
  if (!path.starts_with(prefix)) return std::nullopt;
  return path.drop_front(prefix.size()).str();
}

std::string pathFromWorkingFolder(llvm::StringRef path) {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return path.str();
  std::string file = absolutePath(path);
  std::string up;
  for (std::string folder = cwd.str().str(); !folder.empty() && folder != "/";
       folder = llvm::sys::path::parent_path(folder).str(), up += "../")
    if (auto inside = pathInside(folder, file)) return up + *inside;
  return file;
}

llvm::Error checkGivenOnce(const llvm::cl::opt<std::string>& option) {
  const std::string dash = option.ArgStr.size() == 1 ? "-" : "--";
  if (option.getNumOccurrences() > 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   dash + option.ArgStr.str() + " is given " +
                                       std::to_string(option.getNumOccurrences()) + " times; give it once");
  if (option.getNumOccurrences() && option.getValue().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   dash + option.ArgStr.str() + " needs a value: \"\" names no file or folder");
  return llvm::Error::success();
}

llvm::Error OutputSet::commit(const std::vector<std::string>& inputs) {
  std::vector<std::string> guarded = protected_;
  guarded.insert(guarded.end(), inputs.begin(), inputs.end());
  std::set<std::string> seen;
  for (const StagedOutput& file : files_) {
    if (!seen.insert(file.path).second) return fileError(file.path, "two outputs of this run have this path");
    for (const std::string& input : guarded)
      if (samePath(file.path, input))
        return fileError(file.path, "refusing to overwrite an input (a file this command reads: a source, site map, "
                                    "profile, trace or plan; choose another output path, or use --in-place to change "
                                    "sources deliberately)");
  }
  auto committed = commitOutputs(files_, journalFolder_);
  if (!committed) return committed.takeError();
  committed_ = std::move(*committed);
  return llvm::Error::success();
}

void OutputSet::removeCommitted() {
  for (const std::string& file : committed_.newFiles) llvm::sys::fs::remove(file);
  for (auto folder = committed_.newFolders.rbegin(); folder != committed_.newFolders.rend(); ++folder)
    llvm::sys::fs::remove(*folder);  // only when empty
  committed_ = {};
}

// diffutils' `diff -u` does the diffing; the texts go through temporary files.
llvm::Expected<std::string> unifiedDiff(const std::string& path, const std::string& before, const std::string& after) {
  auto diffProgram = llvm::sys::findProgramByName("diff");
  if (!diffProgram) return llvm::createStringError(diffProgram.getError(), "--diff needs the `diff` program (diffutils)");
  llvm::SmallString<128> beforePath, afterPath, outPath;
  for (auto* p : {&beforePath, &afterPath, &outPath})
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("relayout-diff", "txt", *p))
      return llvm::createStringError(ec, "cannot create a temporary file for --diff");
  auto cleanup = llvm::make_scope_exit([&] {
    for (auto* p : {&beforePath, &afterPath, &outPath}) llvm::sys::fs::remove(*p);
  });
  if (llvm::Error err = writeFileAtomically(beforePath, before)) return std::move(err);
  if (llvm::Error err = writeFileAtomically(afterPath, after)) return std::move(err);
  std::string labelA = "a/" + path, labelB = "b/" + path;
  llvm::SmallVector<llvm::StringRef, 8> args = {*diffProgram, "-u", "--label", labelA, "--label", labelB,
                                                beforePath, afterPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outPath), std::nullopt};
  int rc = llvm::sys::ExecuteAndWait(*diffProgram, args, std::nullopt, redirects);
  if (rc != 0 && rc != 1) return llvm::createStringError(llvm::inconvertibleErrorCode(), "diff failed");
  return readFile(outPath);
}

}  // namespace relayout
