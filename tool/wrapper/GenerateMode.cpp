// `relayout nvcc --relayout-generate=DIR`: compiles instrumented sources, links the runtime, and
// leaves in DIR what `relayout analyze DIR` reads: a site map and a compile command per source,
// and the profiles the program writes when it runs.
#include "build/CompileFlags.h"
#include "build/Toolchain.h"
#include "Diagnostics.h"
#include "commands/SamplingFlags.h"
#include "outputs/Outputs.h"
#include "wrapper/WrapperModes.h"

#include "relayout/core/Files.h"
#include "relayout/instrument/Instrument.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Regex.h>
#include <nlohmann/json.hpp>

namespace relayout {

namespace {

// What each unit adds at its end: where the program writes its profile unless $RELAYOUT_PROFILE
// says otherwise (%m the program's name, %p its process id: runs and ranks do not collide).
std::string defaultProfileCall(const std::string& dir) {
  std::string literal;
  for (char c : dir + "/%m-%p.profile.json") {
    if (c == '"' || c == '\\') literal += '\\';
    literal += c;
  }
  return "\n// relayout nvcc --relayout-generate: the profile goes to this folder unless RELAYOUT_PROFILE names "
         "another file.\n#if !defined(__CUDA_ARCH__)\nstatic const int __rl_default_profile "
         "__attribute__((unused)) = (relayout_rt_set_default_profile(\"" +
         literal + "\"), 0);\n#endif\n";
}

// What generate mode keeps in DIR per source: DIR/NAME-HASH.sites.json and .compile.json, one name
// per source (the hash of its absolute path tells apart sources of the same name in different
// folders), the same at every rebuild, so that a rebuild replaces its files.
struct UnitFiles {
  std::string siteMap, compile;
};
UnitFiles unitFiles(const std::string& dir, const std::string& absoluteSource) {
  const std::string stem =
      dir + "/" + llvm::sys::path::stem(absoluteSource).str() + "-" + sha256Hex(absoluteSource).substr(0, 8);
  return {stem + ".sites.json", stem + ".compile.json"};
}

// A unit's site map and compile, when this build leaves no object instrumented with them.
void removeUnitFiles(const std::string& dir, const std::string& absoluteSource) {
  const UnitFiles files = unitFiles(dir, absoluteSource);
  llvm::sys::fs::remove(files.siteMap);
  llvm::sys::fs::remove(files.compile);
}

// The compile as a compile database entry (what `analyze DIR` gathers into compile_commands.json,
// and the use mode rewrites with): this source only, the other inputs left out.
nlohmann::json compileEntry(const std::string& nvcc, const std::vector<std::string>& flags,
                            const std::string& absoluteSource) {
  llvm::SmallString<256> cwd;
  llvm::sys::fs::current_path(cwd);
  nlohmann::json arguments = nlohmann::json::array({nvcc});
  for (const std::string& flag : flags) arguments.push_back(flag);
  arguments.push_back(absoluteSource);
  return {{"directory", cwd.str().str()}, {"file", absoluteSource}, {"arguments", arguments}};
}

// Instruments one source into the mirror and records its site map and compile in `dir`.
llvm::Error instrumentOne(const std::string& nvcc, const std::vector<std::string>& flags,
                          const std::string& absoluteSource, const std::string& mirror, const std::string& dir) {
  auto db = makeCompilationDatabase("", flags, /*translationNotes=*/false);
  if (!db) return db.takeError();
  InstrumentOptions options = profilingDefaults();
  options.holdClangWarnings = true;  // nvcc reports on the code itself
  auto result = instrumentSources({absoluteSource}, **db, options);
  if (!result) return result.takeError();
  for (const InstrumentedUnit& unit : result->units) {
    std::string text = unit.instrumentedText;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += defaultProfileCall(dir);
    if (llvm::Error err = writeFileAtomically(wrapper::mirrored(mirror, absoluteSource), text)) return err;
    const UnitFiles files = unitFiles(dir, absoluteSource);
    if (llvm::Error err = writeFileAtomically(files.siteMap, unit.siteMap.toJson().dump(1) + "\n")) return err;
    if (llvm::Error err = writeFileAtomically(files.compile, compileEntry(nvcc, flags, absoluteSource).dump(1) + "\n"))
      return err;
  }
  for (const InstrumentedHeader& header : result->headers)
    if (llvm::Error err = writeFileAtomically(wrapper::mirrored(mirror, header.path), header.text)) return err;
  return llvm::Error::success();
}

}  // namespace

namespace {

// Generate mode's hooks need compute capability 8.0 or newer (warp reductions; runtime/include/
// relayout/rt.cuh). Why the targets the arguments name do not all have it, said before anything
// compiles; nullopt when they do. nvcc's default target (no -arch, -gencode or -code) is older.
std::optional<std::string> olderTargets(const std::vector<std::string>& args) {
  static const llvm::Regex number("(sm|compute|lto)_([0-9]+)");
  bool named = false;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    llvm::StringRef value;
    for (llvm::StringRef flag : {"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code"}) {
      if (arg == flag && i + 1 < args.size()) value = args[i + 1];
      else if (arg.starts_with((flag + "=").str())) value = arg.drop_front(flag.size() + 1);
    }
    if (value.empty()) continue;
    named = true;
    if (value == "all" || value == "all-major")
      return "-arch=" + value.str() + " includes GPUs older than compute capability 8.0";
    for (llvm::StringRef rest = value; !rest.empty();) {
      llvm::SmallVector<llvm::StringRef, 3> match;
      if (!number.match(rest, &match)) break;
      unsigned version = 0;
      if (!match[2].getAsInteger(10, version) && version < 80)
        return "'" + arg.str() + (arg.ends_with(value) ? "" : " " + value.str()) + "' names " + match[0].str();
      rest = rest.substr(rest.find(match[0]) + match[0].size());
    }
  }
  if (!named) return "no -arch is given and nvcc's default target is older";
  return std::nullopt;
}

}  // namespace

int runGenerateMode(const std::string& nvcc, const std::vector<std::string>& args, const std::string& givenDir) {
  const NvccInvocation invocation = readNvccInvocation(args);
  if (!invocation.unreadable.empty()) {
    reportNote("nvcc: " + invocation.unreadable + ": compiled as plain nvcc, without instrumentation");
    return wrapper::runCompiler(nvcc, args);
  }
  if (invocation.producesNoObject()) return wrapper::runCompiler(nvcc, args);
  if (!wrapper::cudaSources(args, invocation).empty())
    if (std::optional<std::string> why = olderTargets(args))
      return reportError(
          "nvcc: --relayout-generate needs GPUs of compute capability 8.0 or newer (sm_80, sm_86, sm_89, "
          "sm_90, ...), but " +
          *why + ": give -arch=sm_80 or your GPU's (-arch=sm_90, -arch=native)");
  const std::string dir = absolutePath(givenDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return reportError("nvcc: cannot create the generate folder " + dir + ": " + ec.message());

  const RuntimeToolchain toolchain = relayoutToolchain();
  std::vector<std::string> command = args;
  std::vector<std::string> swapped;
  wrapper::TempFolder mirror;
  const std::vector<size_t> sources = wrapper::cudaSources(args, invocation);
  if (!sources.empty() && !mirror.ok()) return reportError("nvcc: cannot create a temporary folder");
  const std::vector<std::string> flags = wrapper::withoutInputs(args, invocation);
  NvccDiagnosticPaths diagnosticPaths{mirror.path(), {}};
  for (size_t index : sources) {
    const std::string source = absolutePath(args[index]);
    if (llvm::Error err = instrumentOne(nvcc, flags, source, mirror.path(), dir)) {
      // The build goes on: this unit is compiled as it is and has no sites in the profile (nor a
      // site map of an earlier build that `analyze` would match against it).
      removeUnitFiles(dir, source);
      reportWarning("nvcc: " + args[index] +
                    ": not instrumented, compiled as it is: " + llvm::toString(std::move(err)));
      continue;
    }
    command[index] = wrapper::mirrored(mirror.path(), source);
    swapped.push_back(source);
    diagnosticPaths.absoluteToGiven.emplace_back(source, args[index]);
  }
  std::vector<std::string> full;
  if (!swapped.empty()) {
    full = wrapper::mirrorSearchArgs(args, mirror.path(), swapped);
    full.insert(full.end(), {"-I", toolchain.runtimeIncludeDir});
  }
  full.insert(full.end(), command.begin(), command.end());
  if (invocation.links())
    for (const std::string& arg : runtimeLinkArgs(toolchain)) full.push_back(arg);
  int code = wrapper::runCompiler(nvcc, full, swapped.empty() ? nullptr : &diagnosticPaths);
  if (!swapped.empty()) wrapper::restoreDependencyFile(args, invocation, mirror.path());
  if (code != 0)  // no object holds these units' sites
    for (const std::string& source : swapped) removeUnitFiles(dir, source);
  return code;
}

}  // namespace relayout
