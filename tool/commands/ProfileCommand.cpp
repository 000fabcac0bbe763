// relayout profile: one run of an instrumented program, its profile written at exit.
#include "commands/Commands.h"
#include "commands/Pipeline.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

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
                                        "hardware cross-check; build the program with -lineinfo. The program runs "
                                        "once per kernel (CUPTI patches one kernel per run): give it a short input"),
                               cl::sub(command));

namespace {

// Runs the program once with RELAYOUT_PROFILE=temp and the extra variables set, and returns the
// profile it wrote there (temp is removed unless the run succeeded). The runtime writes to a
// temporary name beside the target, renamed once everything succeeded, so a failed run never
// leaves a profile that looks valid.
llvm::Expected<Profile> runOnce(const std::string& program, const std::vector<std::string>& commandLine,
                                const std::string& temp, const std::vector<std::string>& extra) {
  llvm::sys::fs::remove(temp);
  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e) {
    llvm::StringRef var(*e);
    if (!var.starts_with("RELAYOUT_PROFILE=") && !var.starts_with("RELAYOUT_HW=") &&
        !var.starts_with("RELAYOUT_HW_KERNEL="))
      environment.push_back(*e);
  }
  environment.push_back("RELAYOUT_PROFILE=" + temp);
  environment.insert(environment.end(), extra.begin(), extra.end());
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
  if (!profile) llvm::sys::fs::remove(temp);
  return profile;
}

// --hw: CUPTI patches only the kernel launched first after SASS metrics are enabled (CUDA 13.0 on
// an H100; tests/gpu/hw_call_order.cu), so the first run measured one kernel. The program runs
// once more per other kernel, with RELAYOUT_HW_KERNEL naming it, and their lines join the first's.
llvm::Error addOtherKernels(const std::string& program, const std::vector<std::string>& commandLine,
                            const std::string& profilePath, Profile& profile) {
  std::set<std::string> measured;
  for (const HwLine& line : profile.hw->lines) measured.insert(line.function);
  std::vector<const KernelProfile*> others;
  for (const KernelProfile& k : profile.kernels)
    if (!k.mangled.empty() && k.launches > 0 && !measured.count(k.name)) others.push_back(&k);
  for (size_t i = 0; i < others.size(); ++i) {
    const KernelProfile& k = *others[i];
    llvm::errs() << fmt::format("relayout: --hw: run {} of {}, for kernel {}\n", i + 2, others.size() + 1, k.name);
    const std::string temp = profilePath + ".kernel.partial";
    auto run = runOnce(program, commandLine, temp, {"RELAYOUT_HW=1", "RELAYOUT_HW_KERNEL=" + k.mangled});
    llvm::sys::fs::remove(temp);
    if (!run) return run.takeError();
    if (!run->hw) {
      llvm::errs() << "relayout: warning: --hw: no hardware metrics for kernel " << k.name
                   << " (the program's `relayout: --hw:` message says why)\n";
      continue;
    }
    for (HwLine& line : run->hw->lines)
      if (line.function == k.name) profile.hw->lines.push_back(std::move(line));
    profile.hw->runtimeInstructions += run->hw->runtimeInstructions;
    profile.hw->unmappedInstructions += run->hw->unmappedInstructions;
  }
  return llvm::Error::success();
}

}  // namespace

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
  if (llvm::StringRef parent = llvm::sys::path::parent_path(profilePath); !parent.empty())
    llvm::sys::fs::create_directories(parent);

  const std::string temp = profilePath + ".partial";
  auto profile = runOnce(program, commandLine, temp, hw ? std::vector<std::string>{"RELAYOUT_HW=1"}
                                                        : std::vector<std::string>{});
  if (!profile) return profile.takeError();
  if (hw && !profile->hw)
    llvm::errs() << "relayout: warning: --hw: the profile has no hardware metrics (the program's `relayout: --hw:` "
                    "message says why)\n";
  std::string text;
  if (hw && profile->hw) {
    // The runtime's file stands for the first run; the joined lines are written anew.
    if (llvm::Error err = addOtherKernels(program, commandLine, profilePath, *profile)) {
      llvm::sys::fs::remove(temp);
      return err;
    }
    text = profile->toJson().dump(2) + "\n";
  } else {
    auto written = readFile(temp);
    if (!written) return written.takeError();
    text = std::move(*written);
  }
  llvm::sys::fs::remove(temp);
  OutputSet outputs;  // the profile appears whole, like every output
  outputs.add(profilePath, std::move(text));
  return outputs.commit();
}

static int run(const std::vector<std::string>& trailing) {
  if (llvm::Error err = checkGivenOnce(output)) return reportError(std::move(err));
  if (llvm::Error err = runProfiled(trailing, output, hwMetrics)) return reportError(std::move(err));
  llvm::errs() << "relayout: profile written to " << output << "\n";
  return 0;
}

Subcommand profileSubcommand{command, run};

}  // namespace relayout
