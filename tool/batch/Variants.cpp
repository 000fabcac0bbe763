#include "batch/Variants.h"

#include "batch/Paths.h"
#include "batch/Shell.h"
#include "build/BuildPlan.h"
#include "build/Spawn.h"
#include "build/Toolchain.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <sys/wait.h>

#include <cstdio>

namespace relayout::batch {

namespace {

std::vector<std::string> verifyArguments(const App& app, bool forVariant) {
  std::vector<std::string> args;
  if (!app.run.empty()) args.push_back("--run=" + app.run);
  for (const std::string& f : app.compare) args.push_back("--compare=" + f);
  for (const std::string& r : app.ignoreLines) args.push_back("--ignore-lines=" + r);
  if (app.rtol) args.push_back(fmt::format("--rtol={}", *app.rtol));
  if (app.atol) args.push_back(fmt::format("--atol={}", *app.atol));
  if (app.repeat) args.push_back(fmt::format("--repeat={}", *app.repeat));
  if (forVariant) args.insert(args.end(), app.variantOptions.begin(), app.variantOptions.end());
  return args;
}

std::string sourcePath(const App& app, const std::string& source) {
  return llvm::sys::path::is_absolute(source) ? source : joinPath(app.dir, source);
}

}  // namespace

std::string verifyOptions(const App& app, bool forVariant) {
  std::string out;
  for (const std::string& arg : verifyArguments(app, forVariant)) out += " " + shellQuoted(arg);
  return out;
}

llvm::Error buildVariant(const App& app, const Variant& variant, const std::string& outDir) {
  const std::string folder = variantFolder(outDir, app.name, variant.name);
  if (std::error_code ec = llvm::sys::fs::create_directories(folder))
    return llvm::createStringError(ec, "cannot create %s: %s", folder.c_str(), ec.message().c_str());
  BuildRequest request;
  request.withRuntime = false;  // the program as the user's flags make it, timed as theirs
  request.program = joinPath(folder, "program");
  for (const std::string& source : variant.sources) {
    const std::string path = sourcePath(app, source);
    request.units.push_back({path, path, app.flags});
  }
  return runBuild(planBuild(request, relayoutToolchain()), fmt::format("variant '{}' of {}", variant.name, app.name));
}

void verifyVariants(const App& app, const std::string& outDir, const std::string& relayout,
                    const volatile std::sig_atomic_t& stop) {
  const std::string verifyTool = joinPath(std::string(llvm::sys::path::parent_path(relayout)), "relayout-verify");
  const std::string original = joinPath(appFolder(outDir, app.name), "verify/original/program");
  for (const Variant& variant : app.variants) {
    if (stop) return;
    if (llvm::Error err = buildVariant(app, variant, outDir)) {
      std::fprintf(stderr, "relayout: batch: %s: variant '%s' not timed: %s\n", app.name.c_str(), variant.name.c_str(),
                   llvm::toString(std::move(err)).c_str());
      continue;
    }
    const std::string folder = variantFolder(outDir, app.name, variant.name);
    std::vector<std::string> argv = {verifyTool,
                                     "--original",
                                     original,
                                     "--rewritten",
                                     joinPath(folder, "program"),
                                     "-o",
                                     joinPath(folder, "verify")};
    for (std::string& arg : verifyArguments(app, true)) argv.push_back(std::move(arg));
    const std::string log = joinPath(folder, "verify.log");
    // relayout-verify runs the programs in its working folder: the application's, as optimize did.
    std::string outcome;
    if (llvm::Expected<pid_t> pid = spawn(argv, app.dir, log, {})) {
      const int waitStatus = waitWithin(*pid, app.timeoutSeconds, stop);
      outcome = WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) == 0
                    ? "timed"
                    : fmt::format("not timed (relayout-verify: {}; see {})",
                                  WIFEXITED(waitStatus) ? fmt::format("exit {}", WEXITSTATUS(waitStatus))
                                                        : fmt::format("signal {}", WTERMSIG(waitStatus)),
                                  log);
    } else {
      outcome = "not timed: " + llvm::toString(pid.takeError());
    }
    std::fprintf(stderr, "relayout: batch: %s: variant '%s' %s\n", app.name.c_str(), variant.name.c_str(),
                 outcome.c_str());
  }
}

std::optional<VariantSpeedup> variantSpeedup(const std::string& outDir, const std::string& name,
                                             const std::string& variant) {
  llvm::Expected<nlohmann::json> v = readJsonFile(joinPath(variantFolder(outDir, name, variant), "verify/verify.json"));
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  const nlohmann::json* kernel = v->contains("speedup") ? &(*v)["speedup"]["kernel"] : nullptr;
  if (v->value("verdict", "") != "equal" || !kernel || !kernel->is_object()) return std::nullopt;
  return VariantSpeedup{kernel->value("median", 0.0), kernel->value("min", 0.0), kernel->value("max", 0.0)};
}

}  // namespace relayout::batch
