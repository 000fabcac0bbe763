// Fresh temporary folders for unit tests that write files, removed when the test program exits
// normally (a crash leaves them for a look).
#pragma once

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>

#include <string>
#include <vector>

namespace relayout::test {

class TempDirs {
 public:
  ~TempDirs() {
    for (const std::string& dir : dirs_) llvm::sys::fs::remove_directories(dir);
  }
  std::string make(const std::string& prefix) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory(prefix, dir)) return {};
    dirs_.push_back(dir.str().str());
    return dirs_.back();
  }

 private:
  std::vector<std::string> dirs_;
};

// A new folder under the system's temporary folder, named from `prefix`; "" when it cannot be made.
inline std::string makeTempDir(const std::string& prefix) {
  static TempDirs dirs;
  return dirs.make(prefix);
}

}  // namespace relayout::test
