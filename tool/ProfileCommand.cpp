// relayout profile: one run of an instrumented program, its profile written at exit.
#include "Commands.h"
#include "Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

extern char** environ;

namespace relayout {

namespace cl = llvm::cl;

static cl::SubCommand command("profile",
                              "Run an instrumented program once and keep its profile: per access site, how its "
                              "warps touched memory (sectors, lines, lanes sharing an address), and per kernel, "
                              "launches and CUPTI kernel times.\n"
                              "Usage: relayout profile [-o PROFILE.json] [--hw] -- PROGRAM ARGS...");
static cl::opt<std::string> output("o", cl::desc("Profile to write (default: relayout-profile.json)"),
                                   cl::value_desc("PROFILE.json"), cl::init("relayout-profile.json"),
                                   cl::sub(command));
static cl::opt<bool> hwMetrics("hw",
                               cl::desc("Also record what the GPU counted per source line (CUPTI SASS metrics: "
                                        "global load/store instructions, sectors, ideal sectors), for the reports' "
                                        "hardware cross-check; build the program with -lineinfo"),
                               cl::sub(command));

llvm::Error runProfiled(const std::vector<std::string>& commandLine, const std::string& profilePath, bool hw) {
  if (commandLine.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no program to run: give it after `--`, e.g. relayout profile -- ./app -n 100");
  std::string program = commandLine[0];
  if (program.find('/') == std::string::npos) {
    auto found = llvm::sys::findProgramByName(program);
    if (!found) return fileError(program, "program not found on PATH");
    program = *found;
  }
  if (!llvm::sys::fs::can_execute(program)) return fileError(program, "not an executable program");

  // The runtime writes to a temporary name beside the target, renamed once the run succeeded,
  // so a failed run never leaves a profile that looks valid.
  llvm::SmallString<256> temp(profilePath);
  temp += ".partial";
  llvm::sys::fs::remove(temp);
  if (llvm::StringRef parent = llvm::sys::path::parent_path(profilePath); !parent.empty())
    llvm::sys::fs::create_directories(parent);
  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e) {
    llvm::StringRef var(*e);
    if (!var.starts_with("RELAYOUT_PROFILE=") && !(hw && var.starts_with("RELAYOUT_HW="))) environment.push_back(*e);
  }
  environment.push_back(("RELAYOUT_PROFILE=" + temp).str());
  if (hw) environment.push_back("RELAYOUT_HW=1");
  std::vector<llvm::StringRef> args(commandLine.begin(), commandLine.end());
  std::vector<llvm::StringRef> env(environment.begin(), environment.end());

  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, env, {}, 0, 0, &message);
  if (rc != 0) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   rc < 0 ? fmt::format("{}: {}", program, message)
                                          : fmt::format("{} exited with status {}; no profile kept", program, rc));
  }
  if (!llvm::sys::fs::exists(temp))
    return fileError(program, "wrote no profile: was it built from `relayout instrument` output and linked with "
                              "librelayout_rt.a -lcupti -lcuda?");
  auto profile = Profile::load(temp);
  if (!profile) {
    llvm::sys::fs::remove(temp);
    return profile.takeError();
  }
  if (hw && !profile->hw)
    llvm::errs() << "relayout: warning: --hw: the profile has no hardware metrics (the program's `relayout: --hw:` "
                    "message says why)\n";
  if (std::error_code ec = llvm::sys::fs::rename(temp, profilePath))
    return fileError(profilePath, "cannot write: " + ec.message());
  return llvm::Error::success();
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = runProfiled(trailing, output, hwMetrics)) return reportError(std::move(err));
  llvm::errs() << "relayout: profile written to " << output << "\n";
  return 0;
}

Subcommand profileSubcommand{command, run};

}  // namespace relayout
