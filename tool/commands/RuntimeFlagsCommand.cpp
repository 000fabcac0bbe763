// relayout runtime-flags: what an instrumented source is compiled and linked with, printed for the
// builds and scripts that run nvcc themselves, so that the runtime's link line is spelled in one
// place (Toolchain.h) and not again in each of them.
#include "build/Toolchain.h"
#include "commands/Commands.h"

#include <llvm/ADT/StringExtras.h>
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

static int run(const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return reportError("runtime-flags takes no arguments after `--`");
  if (compileOnly && linkOnly) return reportError("runtime-flags: give --compile or --link, not both");
  const RuntimeToolchain toolchain = relayoutToolchain();
  std::vector<std::string> flags;
  if (!linkOnly) flags = {"-I" + toolchain.runtimeIncludeDir};
  if (!compileOnly) {
    const std::vector<std::string> link = runtimeLinkArgs(toolchain);
    flags.insert(flags.end(), link.begin(), link.end());
  }
  for (const std::string& flag : flags)
    if (flag.find_first_of(" \t'\"\\$") != std::string::npos)
      return reportError("runtime-flags: '" + flag +
                         "' would need quoting; install relayout where paths have no spaces");
  llvm::outs() << llvm::join(flags, " ") << "\n";
  return 0;
}

Subcommand runtimeFlagsSubcommand{command, run};

}  // namespace relayout
