#include "CompileFlags.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace relayout {

namespace {

// nvcc flags that matter only for code generation, linking or the host compiler's build.
const llvm::StringSet<> kDroppedFlags = {
    "-lineinfo", "--generate-line-info", "-G", "--device-debug", "-g", "-c", "--compile", "-dc",
    "--device-c", "-dw", "-rdc=true", "-rdc=false", "--relocatable-device-code=true",
    "--relocatable-device-code=false", "--expt-relaxed-constexpr", "--expt-extended-lambda",
    "--extended-lambda", "-use_fast_math", "--use_fast_math", "-res-usage", "--resource-usage",
    "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", "-keep", "--keep",
    "-v", "--verbose", "-shared", "-fPIC", "-cuda", "-ptx", "-cubin", "-fatbin", "-lcupti", "-lcuda",
    "-Werror=all-warnings", "--display-error-number", "--no-display-error-number", "-Wno-deprecated-gpu-targets",
};

// nvcc flags whose value is the next argument and that are dropped with it.
const llvm::StringSet<> kDroppedWithValue = {
    "-o", "--output-file", "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-maxrregcount",
    "--maxrregcount", "-ccbin", "--compiler-bindir", "-cudart", "--cudart", "-Xlinker", "--linker-options",
    "-MF", "-MT", "-MQ", "-odir", "--output-directory", "-Xfatbin", "-t", "--threads",
    "-diag-suppress", "--diag-suppress", "-Xcudafe", "--cudafe-options",
};

// Pulls "sm_90" out of -arch=sm_90, -arch=compute_90, arch=compute_90,code=[...,sm_90].
std::string smFromArchText(llvm::StringRef text) {
  for (llvm::StringRef prefix : {"sm_", "compute_"}) {
    size_t at = text.find(prefix);
    if (at == llvm::StringRef::npos) continue;
    llvm::StringRef digits = text.substr(at + prefix.size()).take_while([](char c) { return isalnum(c); });
    if (!digits.empty()) return ("sm_" + digits).str();
  }
  return "";
}

// Keeps host-compiler flags from -Xcompiler that change what the parser sees.
void translateHostCompilerFlags(llvm::StringRef list, std::vector<std::string>& out) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts)
    if (part.starts_with("-D") || part.starts_with("-U") || part.starts_with("-I") || part.starts_with("-std=") ||
        part == "-fopenmp")
      out.push_back(part.str());
}

}  // namespace

bool isNvccArchFlag(llvm::StringRef flag) {
  return flag.starts_with("-arch") || flag.starts_with("--gpu-architecture") || flag.starts_with("-gencode") ||
         flag.starts_with("--generate-code");
}

// nvcc reads more flags from `--options-file F` / `-optf F` (also F1,F2): they are put in place of
// the option, read as a shell would split them; files naming files are followed 8 deep.
static std::vector<std::string> expandOptionsFiles(const std::vector<std::string>& flags, std::vector<std::string>& notes,
                                                   int depth = 0) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef flag = flags[i];
    std::string files;
    for (llvm::StringRef name : {"--options-file", "-optf"}) {
      if (flag == name && i + 1 < flags.size()) files = flags[++i];
      else if (flag.starts_with((name + "=").str())) files = flag.substr(name.size() + 1).str();
    }
    if (files.empty()) {
      out.push_back(flags[i]);
      continue;
    }
    llvm::SmallVector<llvm::StringRef, 2> names;
    llvm::StringRef(files).split(names, ',', -1, false);
    for (llvm::StringRef name : names) {
      auto buffer = llvm::MemoryBuffer::getFile(name);
      if (!buffer || depth >= 8) {
        notes.push_back(("cannot read the options file '" + name + "'" +
                         (buffer ? llvm::Twine(": options files nest too deep") : llvm::Twine(": ") + buffer.getError().message()))
                            .str());
        continue;
      }
      llvm::BumpPtrAllocator allocator;
      llvm::StringSaver saver(allocator);
      llvm::SmallVector<const char*, 32> tokens;
      llvm::cl::TokenizeGNUCommandLine((*buffer)->getBuffer(), saver, tokens);
      std::vector<std::string> read(tokens.begin(), tokens.end());
      for (std::string& f : expandOptionsFiles(read, notes, depth + 1)) out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<std::string> translateNvccFlags(const std::vector<std::string>& givenFlags, std::vector<std::string>& notes) {
  const std::vector<std::string> flags = expandOptionsFiles(givenFlags, notes);
  std::vector<std::string> out;
  std::string gpuArch;
  for (size_t i = 0; i < flags.size(); ++i) {
    llvm::StringRef flag = flags[i];
    auto value = [&](llvm::StringRef name) -> std::string {  // "-x=v", "-xv" handled by callers
      if (flag.size() > name.size() && flag[name.size()] == '=') return flag.substr(name.size() + 1).str();
      return i + 1 < flags.size() ? flags[++i] : std::string();
    };
    if (kDroppedFlags.contains(flag)) continue;
    if (kDroppedWithValue.contains(flag)) { ++i; continue; }
    if (flag.starts_with("-l") || flag.starts_with("-L") || flag.starts_with("-O") || flag.ends_with(".o") ||
        flag.ends_with(".a") || flag.starts_with("-Xptxas=") || flag.starts_with("--ptxas-options=") ||
        flag.starts_with("-maxrregcount=") || flag.starts_with("--maxrregcount=") || flag.starts_with("-ccbin=") ||
        flag.starts_with("-diag-suppress=") || flag.starts_with("--diag-suppress=") || flag.starts_with("-t=") ||
        flag.starts_with("--threads="))
      continue;
    if (flag == "-I" || flag == "-isystem" || flag == "-include" || flag == "-D" || flag == "-U") {
      out.push_back(flag.str());
      if (i + 1 < flags.size()) out.push_back(flags[++i]);
    } else if (flag.starts_with("-D") || flag.starts_with("-U") || flag.starts_with("-std=") || flag.starts_with("-W")) {
      out.push_back(flag.str());
    } else if (flag.starts_with("-isystem=") || flag.starts_with("--system-include")) {
      // nvcc's `-isystem=DIR`; Clang would read `=DIR` as a folder below the sysroot.
      out.push_back("-isystem");
      out.push_back(value(flag.starts_with("-isystem") ? "-isystem" : "--system-include"));
    } else if (flag.starts_with("-I=")) {
      out.push_back("-I" + flag.substr(3).str());
    } else if (flag.starts_with("-I") || flag.starts_with("-isystem")) {
      out.push_back(flag.str());
    } else if (flag == "--std" || flag == "-std") {
      out.push_back("-std=" + value(flag));
    } else if (flag.starts_with("--include-path")) {
      out.push_back("-I" + value("--include-path"));
    } else if (flag.starts_with("--define-macro")) {
      out.push_back("-D" + value("--define-macro"));
    } else if (isNvccArchFlag(flag) || flag.starts_with("-code") || flag.starts_with("--gpu-code")) {
      llvm::StringRef name = flag.split('=').first;
      std::string sm = smFromArchText(value(name));
      if (gpuArch.empty() && !sm.empty()) gpuArch = sm;
    } else if (flag == "-x" || flag == "--x") {
      ++i;  // the language is always CUDA here
    } else if (flag.starts_with("-Xcompiler") || flag.starts_with("--compiler-options")) {
      translateHostCompilerFlags(value(flag.split('=').first), out);
    } else if (!flag.starts_with("-")) {
      continue;  // an input file of the original command: the tool adds the one it parses
    } else {
      notes.push_back(("dropping compiler flag '" + flag + "' that relayout does not translate for Clang").str());
    }
  }
  if (!gpuArch.empty()) out.push_back("--cuda-gpu-arch=" + gpuArch);
  return out;
}

std::vector<std::string> cudaParseFlags(const std::vector<std::string>& translated) {
  std::vector<std::string> args = {"-x", "cuda", "--cuda-host-only", "--cuda-path=" RELAYOUT_CUDA_ROOT,
                                   "-Wno-unknown-cuda-version", "-isystem", RELAYOUT_CUDA_ROOT "/include/cccl",
                                   "-resource-dir=" RELAYOUT_CLANG_RESOURCE_DIR};
  bool hasArch = false;
  for (const std::string& a : translated) hasArch |= llvm::StringRef(a).starts_with("--cuda-gpu-arch=");
  if (!hasArch) args.push_back("--cuda-gpu-arch=sm_90");
  args.insert(args.end(), translated.begin(), translated.end());
  return args;
}

namespace {

// Wraps any database so that each command is rewritten for Clang: compiler replaced, nvcc flags
// translated, CUDA parse flags added, the source kept last.
class CudaCompilationDatabase : public clang::tooling::CompilationDatabase {
 public:
  explicit CudaCompilationDatabase(std::unique_ptr<clang::tooling::CompilationDatabase> inner)
      : inner_(std::move(inner)) {}

  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef file) const override {
    auto commands = inner_->getCompileCommands(file);
    for (clang::tooling::CompileCommand& command : commands) {
      std::vector<std::string> original(command.CommandLine.begin() + (command.CommandLine.empty() ? 0 : 1),
                                        command.CommandLine.end());
      std::vector<std::string> notes;
      std::vector<std::string> args = cudaParseFlags(translateNvccFlags(original, notes));
      for (const std::string& note : notes)
        if (reported_.insert(note).second) llvm::errs() << "relayout: warning: " << note << "\n";
      args.insert(args.begin(), "clang");
      args.push_back(command.Filename);
      command.CommandLine = std::move(args);
    }
    return commands;
  }
  std::vector<std::string> getAllFiles() const override { return inner_->getAllFiles(); }

 private:
  std::unique_ptr<clang::tooling::CompilationDatabase> inner_;
  mutable llvm::StringSet<> reported_;
};

}  // namespace

// What LibTooling would otherwise abort on ("Cannot chdir") or skip silently: every entry must have
// a "directory" that exists, a "file", and a "command" string or an "arguments" list of strings.
static llvm::Error checkCompileDatabase(const std::string& path) {
  auto fail = [&](const llvm::Twine& why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": " + why);
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return fail("cannot read: " + buffer.getError().message());
  nlohmann::json doc = nlohmann::json::parse((*buffer)->getBuffer().begin(), (*buffer)->getBuffer().end(), nullptr,
                                             /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("is not valid JSON");
  if (!doc.is_array()) return fail("must be a JSON list of compile commands");
  if (doc.empty()) return fail("lists no compile command");
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& entry = doc[i];
    std::string where = "entry " + std::to_string(i + 1);
    if (!entry.is_object()) return fail(where + " is not an object");
    if (!entry.contains("directory") || !entry["directory"].is_string())
      return fail(where + ": \"directory\" must be a string");
    if (!entry.contains("file") || !entry["file"].is_string()) return fail(where + ": \"file\" must be a string");
    bool command = entry.contains("command"), arguments = entry.contains("arguments");
    if (!command && !arguments) return fail(where + ": needs \"command\" or \"arguments\"");
    if (command && !entry["command"].is_string()) return fail(where + ": \"command\" must be a string");
    if (arguments && (!entry["arguments"].is_array() ||
                      std::any_of(entry["arguments"].begin(), entry["arguments"].end(),
                                  [](const nlohmann::json& a) { return !a.is_string(); })))
      return fail(where + ": \"arguments\" must be a list of strings");
    std::string directory = entry["directory"].get<std::string>();
    if (!llvm::sys::fs::is_directory(directory))
      return fail(where + " (" + entry["file"].get<std::string>() + "): its \"directory\" " + directory +
                  " does not exist");
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>> makeCompilationDatabase(
    const std::string& buildDir, const std::vector<std::string>& flags) {
  std::unique_ptr<clang::tooling::CompilationDatabase> inner;
  if (!buildDir.empty()) {
    if (!llvm::sys::fs::exists(buildDir + "/compile_commands.json"))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     buildDir + ": no compile_commands.json here (CMake writes one with "
                                                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
    if (llvm::Error err = checkCompileDatabase(buildDir + "/compile_commands.json")) return std::move(err);
    std::string message;
    inner = clang::tooling::CompilationDatabase::loadFromDirectory(buildDir, message);
    if (!inner)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), buildDir + ": " + message);
  } else {
    inner = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", flags);
  }
  return std::make_unique<CudaCompilationDatabase>(std::move(inner));
}

namespace {

// Flags of a compile command that say where its output and dependency files go: a rebuild
// chooses its own.
const llvm::StringSet<> kOutputFlags = {"-c", "--compile", "-MD", "-MMD", "--generate-dependencies-with-compile",
                                        "--generate-nonsystem-dependencies-with-compile"};
const llvm::StringSet<> kOutputFlagsWithValue = {"-o", "--output-file", "-MF", "--dependency-output", "-MT", "-MQ",
                                                 "-odir", "--output-directory"};
// Flags whose value is a path, written apart ("-I dir") or attached ("-Idir", "--include-path=dir").
const llvm::StringSet<> kPathFlags = {"-I", "-isystem", "-include", "--include-path", "--system-include",
                                      "--pre-include", "-iquote"};

std::string absoluteIn(llvm::StringRef directory, llvm::StringRef path) {
  llvm::SmallString<256> result(path);
  if (!llvm::sys::path::is_absolute(result)) {
    result = directory;
    llvm::sys::path::append(result, path);
  }
  llvm::sys::path::remove_dots(result, /*remove_dot_dot=*/true);
  return result.str().str();
}

// Where the compiler is in a command line: after a compiler launcher, if there is one.
size_t compilerIndex(const std::vector<std::string>& line) {
  static const llvm::StringSet<> kLaunchers = {"ccache", "sccache", "distcc"};
  return line.size() > 1 && kLaunchers.contains(llvm::sys::path::filename(line.front())) ? 1 : 0;
}

// The flags of `command` as a rebuild needs them (see DatabaseCompile).
std::vector<std::string> rebuildFlags(const clang::tooling::CompileCommand& command) {
  const std::string source = absoluteIn(command.Directory, command.Filename);
  const std::vector<std::string>& line = command.CommandLine;
  std::vector<std::string> flags;
  for (size_t i = compilerIndex(line) + 1; i < line.size(); ++i) {
    llvm::StringRef arg = line[i];
    if (kOutputFlags.contains(arg)) continue;
    if (kOutputFlagsWithValue.contains(arg)) { ++i; continue; }
    if (arg.starts_with("--output-file=") || arg.starts_with("--dependency-output=") || arg.starts_with("-MF") ||
        arg.starts_with("-MT") || arg.starts_with("-MQ"))
      continue;
    if (!arg.starts_with("-") && absoluteIn(command.Directory, arg) == source) continue;
    if (kPathFlags.contains(arg) && i + 1 < line.size()) {
      flags.push_back(arg.str());
      flags.push_back(absoluteIn(command.Directory, line[++i]));
      continue;
    }
    bool attachedPath = false;
    for (llvm::StringRef name : {"--include-path=", "--system-include=", "--pre-include=", "-isystem", "-iquote", "-I"})
      if (arg.starts_with(name) && arg.size() > name.size() && !attachedPath) {
        flags.push_back((name + absoluteIn(command.Directory, arg.substr(name.size()))).str());
        attachedPath = true;
      }
    if (!attachedPath) flags.push_back(arg.str());
  }
  return flags;
}

}  // namespace

llvm::Expected<std::vector<DatabaseCompile>> readDatabaseCompiles(const std::string& buildDir,
                                                                  const std::vector<std::string>& sources) {
  const std::string databasePath = buildDir + "/compile_commands.json";
  std::string message;
  auto database = clang::tooling::JSONCompilationDatabase::loadFromFile(
      databasePath, message, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!database) return llvm::createStringError(llvm::inconvertibleErrorCode(), databasePath + ": " + message);
  std::vector<DatabaseCompile> compiles;
  for (const std::string& source : sources) {
    llvm::SmallString<256> absolute(source);
    llvm::sys::fs::make_absolute(absolute);
    llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
    std::vector<clang::tooling::CompileCommand> commands = database->getCompileCommands(absolute);
    if (commands.empty() || commands.front().CommandLine.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     source + ": not compiled by " + databasePath + "; relayout builds each source "
                                     "with its own entry there");
    const clang::tooling::CompileCommand& command = commands.front();  // a source built twice: its first entry
    llvm::StringRef compiler = command.CommandLine[compilerIndex(command.CommandLine)];
    if (llvm::sys::path::stem(compiler) != "nvcc")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     source + ": " + databasePath + " compiles it with '" + compiler +
                                         "'; relayout builds CUDA sources with nvcc");
    compiles.push_back({source, compiler.str(), rebuildFlags(command)});
  }
  return compiles;
}

}  // namespace relayout

namespace relayout {

std::vector<std::string> compileDatabaseFolders(const clang::tooling::CompilationDatabase& db) {
  std::set<std::string> folders;
  for (const clang::tooling::CompileCommand& command : db.getAllCompileCommands()) {
    llvm::SmallString<256> file(command.Filename);
    if (!llvm::sys::path::is_absolute(file)) {
      llvm::SmallString<256> joined(command.Directory);
      llvm::sys::path::append(joined, command.Filename);
      file = joined;
    }
    folders.insert(llvm::sys::path::parent_path(file).str());
  }
  return {folders.begin(), folders.end()};
}

}  // namespace relayout

namespace relayout {

llvm::Error checkSourcesInDatabase(const clang::tooling::CompilationDatabase& db, const std::string& buildDir,
                                   const std::vector<std::string>& sources) {
  if (buildDir.empty()) return llvm::Error::success();
  // Listed files only: LibTooling would infer a command for any other file from its neighbours.
  auto real = [](llvm::StringRef path) {
    llvm::SmallString<256> out;
    if (llvm::sys::fs::real_path(path, out)) return path.str();
    return out.str().str();
  };
  std::set<std::string> listed;
  for (const std::string& file : db.getAllFiles()) listed.insert(real(file));
  for (const std::string& source : sources)
    if (!listed.count(real(source)))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     source + ": not compiled by " + buildDir +
                                         "/compile_commands.json; give the sources your build compiles");
  return llvm::Error::success();
}

}  // namespace relayout
