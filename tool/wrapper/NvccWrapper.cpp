#include "wrapper/NvccWrapper.h"

#include "Diagnostics.h"
#include "wrapper/WrapperModes.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace relayout {

namespace {

constexpr llvm::StringLiteral kLinkName = "relayout-nvcc";

std::string realPathOf(const std::string& path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return path;
  return real.str().str();
}

// Profile-guided modes, asked for by an option (removed from nvcc's arguments) or the environment.
struct Mode {
  std::string name;      // "generate" or "use"; empty: plain nvcc
  std::string argument;  // the folder or the plan
  std::string from;      // how it was asked for, for messages
};

// Every request found, from the environment and the arguments (which lose theirs).
std::vector<Mode> modesOf(std::vector<char*>& args) {
  std::vector<Mode> modes;
  for (const char* variable : {"RELAYOUT_GENERATE", "RELAYOUT_USE"})
    if (const char* value = std::getenv(variable); value && *value)
      modes.push_back({llvm::StringRef(variable).drop_front(9).lower(), value, variable});
  for (auto it = args.begin(); it != args.end();) {
    llvm::StringRef arg(*it);
    bool ours = false;
    for (llvm::StringRef name : {"generate", "use"})
      if (arg.consume_front(("--relayout-" + name + "=").str())) {
        modes.push_back({name.str(), arg.str(), "--relayout-" + name.str()});
        ours = true;
      }
    it = ours ? args.erase(it) : it + 1;
  }
  return modes;
}

// One mode, asked for once (the same request repeated is one): two are an error naming both.
llvm::Expected<Mode> modeOf(std::vector<char*>& args) {
  std::vector<Mode> modes = modesOf(args);
  for (const Mode& other : modes)
    if (other.name != modes.front().name || other.argument != modes.front().argument)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "nvcc: " + modes.front().from + "=" + modes.front().argument + " and " +
                                         other.from + "=" + other.argument +
                                         " are both given; give one (profile-generate or profile-use)");
  return modes.empty() ? Mode{} : modes.front();
}

}  // namespace

bool isNvccWrapperCall(int argc, char** argv) {
  if (argc >= 1 && llvm::sys::path::filename(argv[0]) == kLinkName) return true;
  return argc >= 2 && (std::strcmp(argv[1], "nvcc") == 0 || std::strcmp(argv[1], "nvcc-launcher") == 0);
}

std::string findRealNvcc(const std::string& self, const std::string& fallback) {
  if (const char* chosen = std::getenv("RELAYOUT_NVCC"); chosen && *chosen) return chosen;
  const std::string me = realPathOf(self);
  llvm::SmallVector<llvm::StringRef> dirs;
  if (const char* path = std::getenv("PATH")) llvm::StringRef(path).split(dirs, ':', -1, false);
  for (llvm::StringRef dir : dirs) {
    llvm::SmallString<256> candidate(dir);
    llvm::sys::path::append(candidate, "nvcc");
    if (llvm::sys::fs::can_execute(candidate) && realPathOf(candidate.str().str()) != me) return candidate.str().str();
  }
  return fallback;
}

int runNvccWrapper(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string self = llvm::sys::fs::getMainExecutable(argv[0], reinterpret_cast<void*>(&runNvccWrapper));
  std::string nvcc, launcher;
  if (llvm::sys::path::filename(argv[0]) == kLinkName) {
    args.erase(args.begin());
    nvcc = findRealNvcc(self, RELAYOUT_NVCC);
  } else if (std::strcmp(argv[1], "nvcc") == 0) {
    args.erase(args.begin(), args.begin() + 2);
    nvcc = findRealNvcc(self, RELAYOUT_NVCC);
  } else {  // nvcc-launcher [--relayout-MODE=...] NVCC ARGS...
    args.erase(args.begin(), args.begin() + 2);
    auto compiler = std::find_if(args.begin(), args.end(),
                                 [](const char* arg) { return !llvm::StringRef(arg).starts_with("--relayout-"); });
    if (compiler == args.end()) return reportError("nvcc-launcher: expected the compiler to run, then its arguments");
    // relayout_enable chains a launcher the target had (CUDA_COMPILER_LAUNCHER=ccache): it comes
    // before the compiler, and the user's compiles go through it.
    if (wrapper::isCompilerLauncher(*compiler) && compiler + 1 != args.end()) {
      launcher = *compiler;
      compiler = args.erase(compiler);
    }
    nvcc = *compiler;
    args.erase(compiler);
  }
  // RELAYOUT_NVCC naming relayout itself, or a script that runs it, would start relayout again and
  // again: the first level marks the environment, and a second refuses.
  if (realPathOf(nvcc) == realPathOf(self))
    return reportError("nvcc: the nvcc to run, '" + nvcc + "', is relayout itself: set RELAYOUT_NVCC to the real nvcc");
  if (const char* outer = std::getenv("RELAYOUT_NVCC_WRAPPED"); outer && *outer)
    return reportError("nvcc: relayout was started again by the nvcc it runs ('" + std::string(outer) +
                       "'): set RELAYOUT_NVCC to the real nvcc, not to relayout or a script that runs it");
  setenv("RELAYOUT_NVCC_WRAPPED", nvcc.c_str(), 1);
  wrapper::setChainedLauncher(launcher);
  llvm::Expected<Mode> requested = modeOf(args);
  if (!requested) return reportError(requested.takeError());
  Mode mode = std::move(*requested);
  std::vector<std::string> arguments(args.begin(), args.end());
  if (!mode.name.empty() && mode.argument.empty())
    return reportError("nvcc: " + mode.from + " needs " + (mode.name == "use" ? "a plan" : "a folder"));
  if (mode.name == "generate") return runGenerateMode(nvcc, arguments, mode.argument);
  if (mode.name == "use") return runUseMode(nvcc, arguments, mode.argument);
  // nvcc's own help follows a few lines on what relayout adds to it.
  if (mode.name.empty() && std::any_of(args.begin(), args.end(), [](const char* arg) {
        return std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0;
      })) {
    std::printf(
        "relayout nvcc (also relayout-nvcc): the real nvcc (%s), run with your arguments; two modes make one\n"
        "profile-guided cycle:\n"
        "  --relayout-generate=DIR  (or RELAYOUT_GENERATE=DIR in the environment) each .cu unit instrumented,\n"
        "                           relayout's runtime linked; site maps go to DIR and each run of the\n"
        "                           program writes DIR/PROGRAM-PID.profile.json; then `relayout analyze DIR`\n"
        "  --relayout-use=PLAN      (or RELAYOUT_USE=PLAN) the units the plan covers rewritten to its layouts\n"
        "Generate mode needs sm_80 or newer (-arch=sm_80 ... sm_90). Without a mode, this is plain nvcc.\n"
        "README.md, \"As nvcc, in your build\", has the Makefile and CMake forms.\n\n"
        "nvcc's own help follows.\n\n",
        nvcc.c_str());
    std::fflush(stdout);
  }
  if (!launcher.empty()) return wrapper::runCompiler(nvcc, arguments);
  std::vector<char*> command{nvcc.data()};
  command.insert(command.end(), args.begin(), args.end());
  command.push_back(nullptr);
  execv(nvcc.c_str(), command.data());
  return reportError("nvcc: cannot run '" + nvcc + "': " + std::strerror(errno) +
                     " (set RELAYOUT_NVCC to the nvcc to use)");
}

}  // namespace relayout
