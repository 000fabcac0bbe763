#include "Outputs.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <llvm/ADT/ScopeExit.h>
#include <llvm/Support/Program.h>

namespace relayout {

void OutputSet::add(std::string path, std::string contents) {
  files_.emplace_back(std::move(path), std::move(contents));
}

bool samePath(const std::string& a, const std::string& b) {
  auto normal = [](const std::string& p) {
    llvm::SmallString<256> out;
    if (llvm::sys::fs::real_path(p, out)) {  // does not exist yet: make it absolute and tidy
      out = p;
      llvm::sys::fs::make_absolute(out);
      llvm::sys::path::remove_dots(out, true);
    }
    return out.str().str();
  };
  return normal(a) == normal(b);
}

llvm::Error OutputSet::commit(const std::vector<std::string>& protectedPaths) const {
  for (const auto& [path, contents] : files_)
    for (const std::string& source : protectedPaths)
      if (samePath(path, source))
        return fileError(path, "refusing to overwrite an input source (choose another output folder, or "
                               "use --in-place to change sources deliberately)");
  for (const auto& [path, contents] : files_)
    if (llvm::Error err = writeFileAtomically(path, contents)) return err;
  return llvm::Error::success();
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
