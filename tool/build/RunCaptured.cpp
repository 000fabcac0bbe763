#include "build/RunCaptured.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>

#include <optional>

namespace relayout {

namespace {

std::string readAndRemove(const llvm::SmallString<128>& path) {
  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(path)) text = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(path);
  return text;
}

}  // namespace

CapturedRun runCaptured(const std::string& program, const std::vector<std::string>& args, unsigned secondsToWait) {
  CapturedRun result;
  llvm::SmallString<128> outFile, errFile;
  if (llvm::sys::fs::createTemporaryFile("relayout-run", "out", outFile) ||
      llvm::sys::fs::createTemporaryFile("relayout-run", "err", errFile)) {
    result.message = "cannot create a temporary file";
    return result;
  }
  std::vector<llvm::StringRef> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outFile), llvm::StringRef(errFile)};
  result.status = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, secondsToWait, 0, &result.message);
  result.out = readAndRemove(outFile);
  result.err = readAndRemove(errFile);
  return result;
}

}  // namespace relayout
