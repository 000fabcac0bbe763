// What the wrapper's modes share: running nvcc, the mirror of the sources, dependency files.
#include "Diagnostics.h"
#include "outputs/Outputs.h"
#include "wrapper/WrapperModes.h"

#include "relayout/core/Files.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <cstdlib>
#include <set>

namespace relayout::wrapper {

namespace {
std::string chainedLauncher;
}  // namespace

void setChainedLauncher(const std::string& launcher) { chainedLauncher = launcher; }

bool isCompilerLauncher(const std::string& program) {
  return llvm::is_contained({"ccache", "sccache", "buildcache", "distcc"}, llvm::sys::path::filename(program));
}

int runCompiler(const std::string& nvcc, const std::vector<std::string>& args, const NvccDiagnosticPaths* tidy) {
  std::vector<llvm::StringRef> argv;
  std::string program = nvcc;
  if (!chainedLauncher.empty()) {
    auto found = llvm::sys::path::has_parent_path(chainedLauncher) ? llvm::ErrorOr<std::string>(chainedLauncher)
                                                                   : llvm::sys::findProgramByName(chainedLauncher);
    if (!found) return reportError("nvcc: cannot find the compiler launcher '" + chainedLauncher + "' on PATH"), 1;
    program = *found;
    argv.push_back(chainedLauncher);
  }
  argv.push_back(nvcc);
  argv.insert(argv.end(), args.begin(), args.end());
  std::string message;
  const std::string errorFile = tidy ? tidy->mirror + "/nvcc.stderr" : "";
  const std::optional<llvm::StringRef> toFile[] = {std::nullopt, std::nullopt, llvm::StringRef(errorFile)};
  llvm::ArrayRef<std::optional<llvm::StringRef>> redirects;
  if (tidy) redirects = toFile;
  int code = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0, 0, &message);
  if (tidy) {
    auto text = readFile(errorFile);
    if (text) llvm::errs() << tidyNvccDiagnostics(*text, *tidy);
    else llvm::consumeError(text.takeError());
  }
  if (code < 0 || !message.empty()) {
    reportError("nvcc: cannot run '" + program + "'" + (message.empty() ? "" : ": " + message) +
                " (set RELAYOUT_NVCC to the nvcc to use)");
    return code > 0 ? code : 1;
  }
  return code;
}

std::vector<size_t> cudaSources(const std::vector<std::string>& args, const NvccInvocation& invocation) {
  std::vector<size_t> out;
  for (size_t index : invocation.inputs) {
    llvm::StringRef file = args[index];
    llvm::StringRef extension = llvm::sys::path::extension(file);
    bool hostSource = llvm::is_contained({".cpp", ".cc", ".cxx", ".c++", ".cp", ".CPP", ".C", ".c"}, extension);
    if (extension == ".cu" || (invocation.language == "cu" && hostSource)) out.push_back(index);
  }
  return out;
}

std::string mirrored(const std::string& mirror, const std::string& absolute) {
  llvm::SmallString<256> path(mirror);
  llvm::sys::path::append(path, absolute);
  return path.str().str();
}

std::vector<std::string> mirrorSearchArgs(const std::vector<std::string>& args, const std::string& mirror,
                                          const std::vector<std::string>& swappedSources) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& folder) {
    if (seen.insert(folder).second) out.insert(out.end(), {"-I", folder});
  };
  for (const std::string& flag : translateNvccFlags(args).clangFlags) {
    llvm::StringRef rest = flag;
    if (!rest.consume_front("-I") || rest.empty()) continue;
    std::string copy = mirrored(mirror, absolutePath(rest));
    if (llvm::sys::fs::is_directory(copy)) add(copy);
  }
  for (const std::string& source : swappedSources) {
    std::string folder = llvm::sys::path::parent_path(absolutePath(source)).str();
    add(folder.empty() ? "/" : folder);
  }
  return out;
}

std::vector<std::string> withoutInputs(const std::vector<std::string>& args, const NvccInvocation& invocation) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (!llvm::is_contained(invocation.inputs, i)) out.push_back(args[i]);
  return out;
}

namespace {

// The value of an option given as "-X V", "-X=V" or "--long V" / "--long=V".
std::string optionValue(const std::vector<std::string>& args, std::initializer_list<llvm::StringRef> names) {
  std::string value;
  for (size_t i = 0; i < args.size(); ++i)
    for (llvm::StringRef name : names) {
      llvm::StringRef arg = args[i];
      if (arg == name && i + 1 < args.size()) value = args[i + 1];
      else if (arg.consume_front(name) && arg.consume_front("=")) value = arg.str();
    }
  return value;
}

// Where nvcc writes the dependency file of -MD/-MMD: -MF's file, else the output's name with .d,
// else the input's file name with .d in the working folder.
std::string dependencyFile(const std::vector<std::string>& args, const NvccInvocation& invocation) {
  std::string file = optionValue(args, {"-MF", "--dependency-output"});
  if (!file.empty()) return file;
  llvm::SmallString<256> path(optionValue(args, {"-o", "--output-file"}));
  if (path.empty() && invocation.inputs.size() == 1) path = llvm::sys::path::filename(args[invocation.inputs[0]]);
  if (path.empty()) return "";
  llvm::sys::path::replace_extension(path, ".d");
  return path.str().str();
}

}  // namespace

void restoreDependencyFile(const std::vector<std::string>& args, const NvccInvocation& invocation,
                           const std::string& mirror) {
  if (!invocation.has("generate-dependencies-with-compile") &&
      !invocation.has("generate-nonsystem-dependencies-with-compile"))
    return;
  const std::string file = dependencyFile(args, invocation);
  auto text = readFile(file);
  if (!text) {
    llvm::consumeError(text.takeError());
    return;
  }
  const std::string restored = withoutMirror(*text, mirror);
  if (restored == *text) return;
  if (llvm::Error err = writeFileAtomically(file, restored))
    reportWarning("nvcc: cannot restore the dependency file: " + llvm::toString(std::move(err)));
}

TempFolder::TempFolder() {
  llvm::SmallString<256> path;
  if (!llvm::sys::fs::createUniqueDirectory("relayout-nvcc", path)) {
    llvm::SmallString<256> real;
    path_ = llvm::sys::fs::real_path(path, real) ? path.str().str() : real.str().str();
  }
}

TempFolder::~TempFolder() {
  if (path_.empty()) return;
  if (const char* keep = std::getenv("RELAYOUT_KEEP_TEMPS"); keep && *keep && llvm::StringRef(keep) != "0") {
    reportNote("nvcc: kept the mirrored sources in " + path_);
    return;
  }
  llvm::sys::fs::remove_directories(path_);
}

}  // namespace relayout::wrapper
