#include "build/Toolchain.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace relayout {

std::string relayoutPrefix() {
  static const std::string prefix = [] {
    llvm::SmallString<256> path(llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void*>(&relayoutPrefix)));
    llvm::sys::path::remove_filename(path);
    llvm::sys::path::remove_filename(path);
    return path.str().str();
  }();
  return prefix;
}

RuntimeToolchain relayoutToolchain() {
  const std::string prefix = relayoutPrefix();
  return {RELAYOUT_NVCC, prefix + "/include", prefix + "/lib/librelayout_rt.a", RELAYOUT_CUPTI_LIBRARY_DIR};
}

std::vector<std::string> runtimeLinkArgs(const RuntimeToolchain& toolchain) {
  return {toolchain.runtimeLibrary,
          "-L" + toolchain.cuptiLibraryDir,
          "-Xlinker",
          "-rpath=" + toolchain.cuptiLibraryDir,
          "-lcupti",
          "-lcuda"};
}

}  // namespace relayout
