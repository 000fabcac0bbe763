// relayout runtime-flags: what an instrumented source is compiled and linked with, printed for the
// builds and scripts that run nvcc themselves, so that the runtime's link line is spelled in one
// place (Toolchain.h) and not again in each of them.
#include "build/Toolchain.h"
#include "commands/Commands.h"
#include "relayout/core/Files.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("runtime-flags",
                              "Print the nvcc flags an instrumented source is compiled with (-I for relayout's "
                              "runtime headers) and linked with (the runtime library, CUPTI with its run path, "
                              "the driver), on one line, for builds and scripts that run nvcc themselves: "
                              "nvcc ... $(relayout runtime-flags)");
static cl::opt<bool> compileOnly("compile", cl::desc("Only the compile flags"), cl::sub(command));
static cl::opt<bool> linkOnly("link", cl::desc("Only the link flags"), cl::sub(command));
static cl::opt<std::string> copyTo("copy-to",
                                   cl::desc("Copy the runtime's headers (DIR/include/relayout/) and library "
                                            "(DIR/lib/librelayout_rt.a) into DIR, a new folder, and print the "
                                            "flags naming those copies as DIR is written: for a folder that is "
                                            "built where relayout is not installed (the same CUDA there)"),
                                   cl::value_desc("DIR"), cl::sub(command));

namespace fs = llvm::sys::fs;

// The runtime's headers and library copied into `dir`, a new folder; the toolchain then names
// the copies. On failure the folder goes again, so nothing half-copied is left.
static llvm::Expected<RuntimeToolchain> copyRuntime(RuntimeToolchain toolchain, const std::string& dir) {
  if (fs::exists(dir))
    return llvm::createStringError("runtime-flags: " + dir + " exists; --copy-to makes a new folder");
  const std::string headers = dir + "/include/relayout", library = dir + "/lib/librelayout_rt.a";
  auto fail = [&](const std::string& what, std::error_code ec) -> llvm::Error {
    fs::remove_directories(dir);
    return llvm::createStringError(ec, "runtime-flags: cannot " + what + ": " + ec.message());
  };
  if (std::error_code ec = fs::create_directories(dir + "/lib")) return fail("create " + dir + "/lib", ec);
  if (llvm::Error err = copyTree(toolchain.runtimeIncludeDir + "/relayout", headers)) {
    fs::remove_directories(dir);
    return llvm::createStringError("runtime-flags: " + llvm::toString(std::move(err)));
  }
  if (std::error_code copied = fs::copy_file(toolchain.runtimeLibrary, library))
    return fail("copy " + toolchain.runtimeLibrary, copied);
  toolchain.runtimeIncludeDir = dir + "/include";
  toolchain.runtimeLibrary = library;
  return toolchain;
}

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("runtime-flags takes no arguments after `--`");
  if (compileOnly && linkOnly) return reportError("runtime-flags: give --compile or --link, not both");
  RuntimeToolchain toolchain = relayoutToolchain();
  if (copyTo.getNumOccurrences() && copyTo.empty()) return reportError("runtime-flags: --copy-to needs a folder");
  if (!copyTo.empty()) {
    auto copied = copyRuntime(toolchain, copyTo);
    if (!copied) return reportError(copied.takeError());
    toolchain = *copied;
  }
  std::vector<std::string> flags;
  if (!linkOnly) flags = {"-I" + toolchain.runtimeIncludeDir};
  if (!compileOnly) {
    const std::vector<std::string> link = runtimeLinkArgs(toolchain);
    flags.insert(flags.end(), link.begin(), link.end());
  }
  for (const std::string& flag : flags)
    if (flag.find_first_of(" \t'\"\\$") != std::string::npos) {
      if (!copyTo.empty()) fs::remove_directories(copyTo);  // made above, and of no use
      return reportError("runtime-flags: '" + flag +
                         "' would need quoting; install relayout (or copy it) where paths have no spaces");
    }
  llvm::outs() << llvm::join(flags, " ") << "\n";
  return 0;
}

Subcommand runtimeFlagsSubcommand{command, run};

}  // namespace relayout
