#include "build/BuildPlan.h"

#include "build/CompileFlags.h"
#include "build/Spawn.h"
#include "build/Toolchain.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <limits>
#include <sys/wait.h>
#include <set>

namespace relayout {

namespace {

bool contains(const std::vector<std::string>& flags, std::initializer_list<llvm::StringRef> names) {
  return std::any_of(flags.begin(), flags.end(), [&](const std::string& flag) {
    return std::find(names.begin(), names.end(), llvm::StringRef(flag)) != names.end();
  });
}

// nvcc flags that take their value as the next argument when written without '='.
bool takesNextValue(llvm::StringRef flag) {
  static const llvm::StringSet<> kNames = {"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code",
                                           "--gpu-code", "-ccbin", "--compiler-bindir", "-rdc",
                                           "--relocatable-device-code"};
  return kNames.contains(flag);
}

// The flags (with their values) for which `select` is true, in order.
template <typename Select>
std::vector<std::string> pick(const std::vector<std::string>& flags, Select select) {
  std::vector<std::string> picked;
  for (size_t i = 0; i < flags.size(); ++i) {
    bool withValue = takesNextValue(flags[i]) && i + 1 < flags.size();
    if (select(llvm::StringRef(flags[i]))) {
      picked.push_back(flags[i]);
      if (withValue) picked.push_back(flags[i + 1]);
    }
    if (withValue) ++i;
  }
  return picked;
}

bool isArchFlag(llvm::StringRef flag) {
  return isNvccArchFlag(flag) || flag == "-code" || flag.starts_with("-code=") || flag.starts_with("--gpu-code");
}

bool isHostCompilerFlag(llvm::StringRef flag) {
  return flag == "-ccbin" || flag.starts_with("-ccbin=") || flag.starts_with("--compiler-bindir");
}

bool isRelocatable(const std::vector<std::string>& flags) {
  if (contains(flags, {"-dc", "--device-c", "-rdc=true", "--relocatable-device-code=true"})) return true;
  for (size_t i = 0; i + 1 < flags.size(); ++i)
    if ((flags[i] == "-rdc" || flags[i] == "--relocatable-device-code") && flags[i + 1] == "true") return true;
  return false;
}

std::string folderOf(const std::string& path) {
  std::string folder = llvm::sys::path::parent_path(path).str();
  return folder.empty() ? "." : folder;
}

// -I for relayout's copies of headers first, then each source's own folder: the instrumented copy
// lives elsewhere, and the headers it includes with "..." are beside the original.
std::vector<std::string> headerSearch(const BuildRequest& request, const std::vector<const UnitToBuild*>& units) {
  std::vector<std::string> args;
  std::set<std::string> seen;
  auto add = [&](const std::string& folder) {
    if (seen.insert(folder).second) args.insert(args.end(), {"-I", folder});
  };
  for (const std::string& root : request.copiedIncludeRoots) add(root);
  for (const UnitToBuild* unit : units) add(folderOf(unit->originalSource));
  return args;
}

void addRuntimeLink(std::vector<std::string>& args, const RuntimeToolchain& toolchain) {
  const std::vector<std::string> link = runtimeLinkArgs(toolchain);
  args.insert(args.end(), link.begin(), link.end());
}

std::vector<NvccCommand> planOneCommand(const BuildRequest& request, const RuntimeToolchain& toolchain) {
  const std::vector<std::string> flags = request.units.empty() ? std::vector<std::string>() : request.units[0].flags;
  std::vector<const UnitToBuild*> units;
  for (const UnitToBuild& unit : request.units) units.push_back(&unit);
  NvccCommand command{{toolchain.nvcc}, request.program, "compiling and linking"};
  std::vector<std::string>& args = command.args;
  if (request.withRuntime) args.push_back("-lineinfo");
  std::vector<std::string> search = headerSearch(request, units);
  args.insert(args.end(), search.begin(), search.end());
  if (request.withRuntime) args.insert(args.end(), {"-I", toolchain.runtimeIncludeDir});
  if (pick(flags, isArchFlag).empty()) args.push_back("-arch=native");
  args.insert(args.end(), flags.begin(), flags.end());
  for (const UnitToBuild& unit : request.units) args.push_back(unit.instrumentedSource);
  args.insert(args.end(), {"-o", request.program});
  if (request.withRuntime) addRuntimeLink(args, toolchain);
  return {command};
}

std::vector<NvccCommand> planSeparateCompiles(const BuildRequest& request, const RuntimeToolchain& toolchain) {
  std::vector<NvccCommand> commands;
  std::vector<std::string> linkArch, hostCompiler, objects;
  std::set<std::string> seenArch;
  bool relocatable = false;
  for (const UnitToBuild& unit : request.units) {
    std::string object = request.objectDir + "/" + llvm::sys::path::stem(unit.instrumentedSource).str() + ".o";
    NvccCommand compile{{toolchain.nvcc}, object, "compiling " + unit.originalSource};
    std::vector<std::string>& args = compile.args;
    std::vector<std::string> search = headerSearch(request, {&unit});
    args.insert(args.end(), search.begin(), search.end());
    args.insert(args.end(), unit.flags.begin(), unit.flags.end());
    if (request.withRuntime) {
      args.insert(args.end(), {"-I", toolchain.runtimeIncludeDir});
      if (!contains(unit.flags, {"-lineinfo", "--generate-line-info"})) args.push_back("-lineinfo");
    }
    std::vector<std::string> arch = pick(unit.flags, isArchFlag);
    if (arch.empty()) {
      arch = {"-arch=native"};
      args.push_back(arch.front());
    }
    if (!contains(unit.flags, {"-dc", "--device-c"})) args.push_back("-c");
    args.insert(args.end(), {unit.instrumentedSource, "-o", object});
    commands.push_back(std::move(compile));

    // The link targets every architecture some unit was compiled for.
    for (size_t i = 0; i < arch.size(); ++i) {
      std::string flag = arch[i];
      bool withValue = takesNextValue(flag) && i + 1 < arch.size();
      std::string key = withValue ? flag + " " + arch[i + 1] : flag;
      if (seenArch.insert(key).second) {
        linkArch.push_back(flag);
        if (withValue) linkArch.push_back(arch[i + 1]);
      }
      if (withValue) ++i;
    }
    if (hostCompiler.empty()) hostCompiler = pick(unit.flags, isHostCompilerFlag);
    relocatable |= isRelocatable(unit.flags);
    objects.push_back(object);
  }
  NvccCommand link{{toolchain.nvcc}, request.program, "linking " + request.program};
  link.args.insert(link.args.end(), hostCompiler.begin(), hostCompiler.end());
  link.args.insert(link.args.end(), linkArch.begin(), linkArch.end());
  if (relocatable) link.args.push_back("-rdc=true");
  link.args.insert(link.args.end(), objects.begin(), objects.end());
  link.args.insert(link.args.end(), {"-o", request.program});
  if (request.withRuntime) addRuntimeLink(link.args, toolchain);
  commands.push_back(std::move(link));
  return commands;
}

std::string shellQuoted(llvm::StringRef arg) {
  bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
    return llvm::isAlnum(c) || llvm::StringRef("_-./=:,+@%").contains(c);
  });
  if (plain) return arg.str();
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The first real architecture the flags name ("sm_90" from -arch=sm_90, -arch sm_90 or -gencode
// arch=compute_90,code=sm_90), or "".
std::string firstArchitecture(const std::vector<std::string>& flags) {
  for (const std::string& flag : pick(flags, isArchFlag)) {
    llvm::StringRef rest = flag;
    for (size_t at = rest.find("sm_"); at != llvm::StringRef::npos; at = rest.find("sm_", at + 1)) {
      llvm::StringRef arch = rest.substr(at).take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
      if (arch.size() > 3) return arch.str();
    }
    if (size_t at = rest.find("compute_"); at != llvm::StringRef::npos)
      return "sm_" + rest.substr(at + 8).take_while([](char c) { return llvm::isAlnum(c); }).str();
  }
  return "";
}

}  // namespace

std::vector<NvccCommand> planPtx(const BuildRequest& request, const std::string& nvcc, const std::string& dir) {
  std::vector<NvccCommand> commands;
  for (const UnitToBuild& unit : request.units) {
    const std::string output = dir + "/" + llvm::sys::path::stem(unit.originalSource).str() + ".ptx";
    NvccCommand command{{nvcc}, output, "PTX of " + unit.originalSource};
    std::vector<std::string>& args = command.args;
    std::vector<std::string> search = headerSearch(request, {&unit});
    args.insert(args.end(), search.begin(), search.end());
    for (size_t i = 0; i < unit.flags.size(); ++i) {
      llvm::StringRef flag = unit.flags[i];
      const bool withValue = takesNextValue(flag) && i + 1 < unit.flags.size();
      const bool dropped = isArchFlag(flag) || flag == "-c" || flag == "-dc" || flag == "--device-c" ||
                           flag == "-lineinfo" || flag == "--generate-line-info" || flag == "-o";
      if (!dropped) {
        args.push_back(unit.flags[i]);
        if (withValue) args.push_back(unit.flags[i + 1]);
      }
      if (withValue || flag == "-o") ++i;
    }
    const std::string arch = firstArchitecture(unit.flags);
    args.push_back("-arch=" + (arch.empty() ? std::string("sm_90") : arch));
    args.insert(args.end(), {"-ptx", "-lineinfo", unit.originalSource, "-o", output});
    commands.push_back(std::move(command));
  }
  return commands;
}

std::string NvccCommand::text() const {
  std::vector<std::string> quoted;
  for (const std::string& arg : args) quoted.push_back(shellQuoted(arg));
  return llvm::join(quoted, " ");
}

std::vector<NvccCommand> planBuild(const BuildRequest& request, const RuntimeToolchain& toolchain) {
  return request.compileSeparately ? planSeparateCompiles(request, toolchain) : planOneCommand(request, toolchain);
}

llvm::Error runBuild(const std::vector<NvccCommand>& commands, const std::string& what) {
  for (const NvccCommand& command : commands) {
    if (std::error_code ec = llvm::sys::fs::create_directories(folderOf(command.output)))
      return llvm::createStringError(ec, folderOf(command.output) + ": cannot create the folder: " + ec.message());
    llvm::errs() << "relayout: building " << what << ": " << command.text() << "\n";
    // nvcc and what it starts run in a process group of their own: an interrupt of relayout stops
    // them and waits for them, so that nothing writes the output once relayout has ended.
    batch::StopOnSignal stop;
    llvm::Expected<pid_t> pid = batch::spawn(command.args, ".", "", {});
    if (!pid) return pid.takeError();
    const int status = batch::waitWithin(*pid, std::numeric_limits<unsigned>::max() / 2, stop.flag());
    if (int sig = stop.signal()) {
      llvm::sys::fs::remove(command.output);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "interrupted by signal " + std::to_string(sig) + " while nvcc built " + what +
                                         " (" + command.what + "); nvcc was stopped and its output removed");
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "nvcc could not build " + what + " (" + command.what + ")" +
                                         (WIFSIGNALED(status) ? ": killed by signal " + std::to_string(WTERMSIG(status))
                                                              : ""));
  }
  return llvm::Error::success();
}

}  // namespace relayout
