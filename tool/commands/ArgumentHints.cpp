// Mistakes on relayout's command line that LLVM's option parser would answer with a guess
// ("Did you mean '-h'?"), read before it runs, each answered with the fix.
#include "commands/ArgumentHints.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>

namespace relayout {

namespace {

// Flags of nvcc (and of the host compilers it passes them to) that no subcommand of relayout has.
bool looksLikeCompilerFlag(llvm::StringRef arg) {
  static const char* const kPrefixes[] = {"-O",
                                          "-arch",
                                          "--gpu-architecture",
                                          "-gencode",
                                          "--generate-code",
                                          "-I",
                                          "-D",
                                          "-U",
                                          "-std",
                                          "--std",
                                          "-G",
                                          "-lineinfo",
                                          "--generate-line-info",
                                          "-Xcompiler",
                                          "-Xptxas",
                                          "-rdc",
                                          "-L",
                                          "-l",
                                          "-ccbin",
                                          "--use_fast_math",
                                          "-use_fast_math",
                                          "-isystem",
                                          "-include",
                                          "--expt-",
                                          "-maxrregcount",
                                          "--extended-lambda",
                                          "-m64",
                                          "-W",
                                          "-f",
                                          "-c"};
  for (const char* prefix : kPrefixes)
    if (arg.starts_with(prefix)) return true;
  return arg == "-g";
}

// The option `arg` names in `sub` (or at the top level), when it is one.
llvm::cl::Option* optionOf(llvm::cl::SubCommand& sub, llvm::StringRef arg) {
  llvm::StringRef name = arg.ltrim('-').split('=').first;
  if (name.empty()) return nullptr;
  if (auto it = sub.OptionsMap.find(name); it != sub.OptionsMap.end()) return it->second;
  auto& top = llvm::cl::SubCommand::getTopLevel();
  if (auto it = top.OptionsMap.find(name); it != top.OptionsMap.end()) return it->second;
  return nullptr;
}

bool takesSeparateValue(const llvm::cl::Option& option, llvm::StringRef arg) {
  return !arg.contains('=') && option.getValueExpectedFlag() == llvm::cl::ValueRequired;
}

}  // namespace

std::optional<std::string> argumentHint(int split, char** argv) {
  if (split < 2) return std::nullopt;
  llvm::StringRef name = argv[1];
  llvm::cl::SubCommand* sub = nullptr;
  for (llvm::cl::SubCommand* s : llvm::cl::getRegisteredSubcommands())
    if (s->getName() == name) sub = s;
  if (!sub) return std::nullopt;
  const bool takesSources = name == "instrument" || name == "rewrite" || name == "optimize";
  unsigned positional = 0;
  for (int i = 2; i < split; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.size() > 1 && arg.starts_with("-")) {
      llvm::cl::Option* option = optionOf(*sub, arg);
      if (!option) {
        if (looksLikeCompilerFlag(arg))
          return "'" + arg.str() + "' is a compiler flag: nvcc's flags go after `--` (relayout " + name.str() +
                 " ... -- " + arg.str() + ")";
        continue;  // the parser says it is unknown
      }
      if (!takesSeparateValue(*option, arg) || i + 1 >= split) continue;
      llvm::StringRef value = argv[++i];
      // `--run -n 1000`: the option took `-n`, and 1000 would be taken for a source.
      if (option->ArgStr == "run" && value.starts_with("-") && !value.contains(' ') && i + 1 < split &&
          !llvm::StringRef(argv[i + 1]).starts_with("-") && !llvm::sys::fs::exists(argv[i + 1]))
        return "--run takes the program's arguments as one quoted string: --run '" + value.str() + " " +
               std::string(argv[i + 1]) + "'";
      continue;
    }
    ++positional;
    if (name == "profile")
      return "'" + arg.str() + "': the program to profile and its arguments go after `--` (relayout profile -o " +
             "PROFILE.json -- " + arg.str() + " ARGS...)";
  }
  if (takesSources && positional == 0) {
    bool help = false;
    for (int i = 2; i < split; ++i)
      help |= llvm::StringRef(argv[i]).starts_with("--help") || llvm::StringRef(argv[i]) == "-h";
    if (!help)
      return "no source file given: relayout " + name.str() + " FILE.cu... (see relayout " + name.str() + " --help)";
  }
  return std::nullopt;
}

}  // namespace relayout
