#include "build/CompileFlags.h"

#include "build/NvccFlags.h"

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/raw_ostream.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace relayout {

// Clang needs an architecture for CUDA; nvcc's flags often name none.
constexpr const char* kDefaultGpuArch = "sm_90";

bool isNvccArchFlag(llvm::StringRef flag) {
  return flag.starts_with("-arch") || flag.starts_with("--gpu-architecture") || flag.starts_with("-gencode") ||
         flag.starts_with("--generate-code");
}

std::vector<std::string> clangParseArguments(const NvccTranslation& translation, llvm::StringRef file) {
  const SourceLanguage language = nvccSourceLanguage(file, translation.language);
  std::vector<std::string> archs = translation.gpuArchs;
  if (archs.empty()) archs.push_back(kDefaultGpuArch);
  std::vector<std::string> args;
  if (language == SourceLanguage::Cuda) {
    args = {"-x",
            "cuda",
            "--cuda-host-only",
            "--cuda-path=" RELAYOUT_CUDA_ROOT,
            "-Wno-unknown-cuda-version",
            "-isystem",
            RELAYOUT_CUDA_ROOT "/include/cccl",
            "-resource-dir=" RELAYOUT_CLANG_RESOURCE_DIR};
    for (const std::string& arch : archs) args.push_back("--cuda-gpu-arch=" + arch);
  } else {
    // nvcc hands a .cpp or .c file to the host compiler with CUDA's headers on the path and
    // __CUDA_ARCH_LIST__ (Clang defines that one itself for CUDA).
    args = {"-x",
            language == SourceLanguage::Cxx ? "c++" : "c",
            "-isystem",
            RELAYOUT_CUDA_ROOT "/include",
            "-isystem",
            RELAYOUT_CUDA_ROOT "/include/cccl",
            "-resource-dir=" RELAYOUT_CLANG_RESOURCE_DIR};
    std::string list;
    for (const std::string& arch : archs)  // sm_90a: 900
      list += (list.empty() ? "" : ",") +
              llvm::StringRef(arch).drop_front(3).take_while([](char c) { return llvm::isDigit(c); }).str() + "0";
    args.push_back("-D__CUDA_ARCH_LIST__=" + list);
  }
  for (std::string& macro : nvccMacroFlags()) args.push_back(std::move(macro));
  if (language == SourceLanguage::Cuda) {
    if (std::string header = dialectHeaderPath(); !header.empty()) args.insert(args.end(), {"-include", header});
    args.insert(args.end(), translation.cudaFlags.begin(), translation.cudaFlags.end());
  }
  for (const std::string& flag : translation.clangFlags)
    if (language != SourceLanguage::C || !llvm::StringRef(flag).starts_with("-std=c++")) args.push_back(flag);
  return args;
}

namespace {

// True when a compile command runs a C or C++ compiler (after a launcher such as ccache), not nvcc.
bool isHostCompilerCommand(const std::vector<std::string>& line) {
  static const llvm::StringSet<> kLaunchers = {"ccache", "sccache", "distcc"};
  static const llvm::StringSet<> kHostCompilers = {"cc", "c++", "gcc", "g++", "clang", "clang++", "icx", "icpx"};
  size_t at = line.size() > 1 && kLaunchers.contains(llvm::sys::path::filename(line.front())) ? 1 : 0;
  if (at >= line.size()) return false;
  llvm::StringRef name = llvm::sys::path::filename(line[at]);
  // Versioned names too: g++-12, clang++-22.
  auto [base, version] = name.rsplit('-');
  return kHostCompilers.contains(name) ||
         (!version.empty() && llvm::all_of(version, llvm::isDigit) && kHostCompilers.contains(base));
}

// Wraps any database so that each command is rewritten for Clang: compiler replaced, nvcc flags
// translated, CUDA parse flags added, the source kept last.
class CudaCompilationDatabase : public clang::tooling::CompilationDatabase {
 public:
  CudaCompilationDatabase(std::unique_ptr<clang::tooling::CompilationDatabase> inner, bool notes)
      : inner_(std::move(inner)), notes_(notes) {}

  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef file) const override {
    auto commands = inner_->getCompileCommands(file);
    for (clang::tooling::CompileCommand& command : commands) {
      std::vector<std::string> original(command.CommandLine.begin() + (command.CommandLine.empty() ? 0 : 1),
                                        command.CommandLine.end());
      // A database entry of the host compiler (a .cpp built by g++): its flags are all host flags.
      if (isHostCompilerCommand(command.CommandLine))
        original.insert(original.begin(), "--forward-unknown-to-host-compiler");
      NvccTranslation translation = translateNvccFlags(original);
      if (notes_) reportOnce(translation.notes, "note");
      reportOnce(translation.warnings, "warning");
      std::vector<std::string> args = clangParseArguments(translation, command.Filename);
      args.insert(args.begin(), "clang");
      args.push_back(command.Filename);
      command.CommandLine = std::move(args);
    }
    return commands;
  }
  std::vector<std::string> getAllFiles() const override { return inner_->getAllFiles(); }

 private:
  // Once per run, whatever the number of sources and databases.
  static void reportOnce(const std::vector<std::string>& messages, llvm::StringRef severity) {
    static llvm::StringSet<> reported;
    for (const std::string& message : messages)
      if (reported.insert((severity + ": " + message).str()).second)
        llvm::errs() << "relayout: " << severity << ": " << message << "\n";
  }

  std::unique_ptr<clang::tooling::CompilationDatabase> inner_;
  bool notes_;  // the translation's notes (flags dropped on purpose): off inside a build
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
    if (arguments &&
        (!entry["arguments"].is_array() || std::any_of(entry["arguments"].begin(), entry["arguments"].end(),
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
    const std::string& buildDir, const std::vector<std::string>& flags, bool translationNotes) {
  std::unique_ptr<clang::tooling::CompilationDatabase> inner;
  if (!buildDir.empty()) {
    if (!llvm::sys::fs::exists(buildDir + "/compile_commands.json"))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     buildDir +
                                         ": no compile_commands.json here (CMake writes one with "
                                         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
    if (llvm::Error err = checkCompileDatabase(buildDir + "/compile_commands.json")) return std::move(err);
    std::string message;
    inner = clang::tooling::CompilationDatabase::loadFromDirectory(buildDir, message);
    if (!inner) return llvm::createStringError(llvm::inconvertibleErrorCode(), buildDir + ": " + message);
  } else {
    inner = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", flags);
  }
  return std::make_unique<CudaCompilationDatabase>(std::move(inner), translationNotes);
}

namespace {

// Flags of a compile command that say where its output and dependency files go: a rebuild
// chooses its own.
const llvm::StringSet<> kOutputFlags = {"-c",
                                        "--compile",
                                        "-MD",
                                        "-MMD",
                                        "--generate-dependencies-with-compile",
                                        "--generate-nonsystem-dependencies-with-compile"};
const llvm::StringSet<> kOutputFlagsWithValue = {"-o",  "--output-file", "-MF",   "--dependency-output",
                                                 "-MT", "-MQ",           "-odir", "--output-directory"};
// Flags whose value is a path, written apart ("-I dir") or attached ("-Idir", "--include-path=dir").
const llvm::StringSet<> kPathFlags = {
    "-I", "-isystem", "-include", "--include-path", "--system-include", "--pre-include", "-iquote"};

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
    if (kOutputFlagsWithValue.contains(arg)) {
      ++i;
      continue;
    }
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
      return llvm::createStringError(llvm::inconvertibleErrorCode(), source + ": not compiled by " + databasePath +
                                                                         "; relayout builds each source "
                                                                         "with its own entry there");
    const clang::tooling::CompileCommand& command = commands.front();  // a source built twice: its first entry
    llvm::StringRef compiler = command.CommandLine[compilerIndex(command.CommandLine)];
    if (llvm::sys::path::stem(compiler) != "nvcc")
      return llvm::createStringError(llvm::inconvertibleErrorCode(), source + ": " + databasePath +
                                                                         " compiles it with '" + compiler +
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
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          source + ": not compiled by " + buildDir + "/compile_commands.json; give the sources your build compiles");
  return llvm::Error::success();
}

}  // namespace relayout
