// `relayout nvcc --relayout-use=PLAN`: the plan's sources compile in their rewritten form. The plan is
// applied to all its sources at once (a struct's layout must be the same in every unit), by the
// first compile that needs it; later compiles reuse that rewritten tree, kept beside the plan in
// PLAN_FOLDER/.relayout-use/ and made again when the plan, a source or a rewritten header changes.
#include "Diagnostics.h"
#include "commands/Pipeline.h"
#include "outputs/Outputs.h"
#include "wrapper/WrapperModes.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/ScopeExit.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

namespace relayout {

namespace {

constexpr llvm::StringLiteral kManifest = ".relayout-manifest.json";

// Whether `tree` was rewritten from the files as they are now: its manifest records the sha256 of
// the original of every file in it.
bool upToDate(const std::string& tree) {
  auto manifest = readJsonFile(tree + "/" + kManifest.str());
  if (!manifest) {
    llvm::consumeError(manifest.takeError());
    return false;
  }
  if (!manifest->is_object() || manifest->empty()) return false;
  for (const auto& [original, sha] : manifest->items()) {
    auto text = readFile(original);
    if (!text) {
      llvm::consumeError(text.takeError());
      return false;
    }
    if (!sha.is_string() || sha256Hex(*text) != sha.get<std::string>()) return false;
  }
  return true;
}

// Rewrites every source of the plan into `staging` (mirrored), with the compile commands `analyze
// DIR` wrote beside the plan when there are any, else with this compile's flags for every source.
llvm::Error rewriteInto(const Plan& plan, const std::string& planPath, const std::vector<std::string>& flags,
                        const std::string& staging) {
  std::vector<std::string> sources;
  for (const PlanSource& source : plan.sources) sources.push_back(source.path);
  const std::string planFolder = llvm::sys::path::parent_path(absolutePath(planPath)).str();
  const std::string buildDir = llvm::sys::fs::exists(planFolder + "/compile_commands.json") ? planFolder : "";
  OutputSet outputs;
  RewriteDestination destination{RewriteOutput::OutRoot, staging, "/"};
  if (llvm::Error err = rewriteAndStage(plan, planPath, sources, buildDir, flags, destination, outputs)) return err;
  nlohmann::json manifest = nlohmann::json::object();
  for (const StagedOutput& file : outputs.files()) {
    llvm::StringRef original = file.path;
    original.consume_front(staging);
    auto text = readFile(original);
    if (!text) return text.takeError();
    manifest[original.str()] = sha256Hex(*text);
  }
  outputs.add(staging + "/" + kManifest.str(), manifest.dump(1) + "\n");
  return outputs.commit(sources);
}

// The rewritten tree for this plan, made under a lock so that parallel compiles make it once.
llvm::Expected<std::string> rewrittenTree(const Plan& plan, const std::string& planPath, const std::string& planText,
                                          const std::vector<std::string>& flags) {
  const std::string planFolder = llvm::sys::path::parent_path(absolutePath(planPath)).str();
  const std::string cache = planFolder + "/.relayout-use";
  const std::string tree = cache + "/" + sha256Hex(planText + RELAYOUT_VERSION).substr(0, 16);
  if (upToDate(tree)) return tree;
  if (std::error_code ec = llvm::sys::fs::create_directories(cache))
    return fileError(cache, "cannot create the folder for the rewritten sources: " + ec.message());
  int lockFd = -1;
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(cache + "/lock", lockFd, llvm::sys::fs::CD_OpenAlways))
    return fileError(cache + "/lock", ec.message());
  auto closeLock = llvm::make_scope_exit([&] {
    llvm::sys::fs::unlockFile(lockFd);
    ::close(lockFd);
  });
  if (std::error_code ec = llvm::sys::fs::lockFile(lockFd)) return fileError(cache + "/lock", ec.message());
  if (upToDate(tree)) return tree;  // another compile made it while this one waited
  const std::string staging = tree + ".new";
  llvm::sys::fs::remove_directories(staging);
  if (llvm::Error err = rewriteInto(plan, planPath, flags, staging)) {
    llvm::sys::fs::remove_directories(staging);
    return err;
  }
  const std::string old = tree + ".old";
  llvm::sys::fs::remove_directories(old);
  if (llvm::sys::fs::exists(tree)) llvm::sys::fs::rename(tree, old);
  if (std::error_code ec = llvm::sys::fs::rename(staging, tree)) return fileError(tree, ec.message());
  llvm::sys::fs::remove_directories(old);
  return tree;
}

}  // namespace

int runUseMode(const std::string& nvcc, const std::vector<std::string>& args, const std::string& planPath) {
  auto planText = readFile(planPath);
  if (!planText) return reportError("nvcc: the plan given to the use mode: " + llvm::toString(planText.takeError()));
  auto planJson = parseJson(*planText, planPath);
  if (!planJson) return reportError("nvcc: the plan given to the use mode: " + llvm::toString(planJson.takeError()));
  auto plan = Plan::fromJson(*planJson, planPath);
  if (!plan) return reportError("nvcc: the plan given to the use mode: " + llvm::toString(plan.takeError()));
  const NvccInvocation invocation = readNvccInvocation(args);
  if (!invocation.unreadable.empty()) {
    reportNote("nvcc: " + invocation.unreadable + ": compiled as plain nvcc, without the plan");
    return wrapper::runCompiler(nvcc, args);
  }
  if (invocation.producesNoObject()) return wrapper::runCompiler(nvcc, args);

  std::vector<size_t> planned;
  std::vector<std::string> plannedSources;
  for (size_t index : wrapper::cudaSources(args, invocation))
    for (const PlanSource& source : plan->sources)
      if (samePath(args[index], source.path)) {
        planned.push_back(index);
        plannedSources.push_back(absolutePath(args[index]));
      }
  if (planned.empty()) {
    // A unit the plan does not cover compiles unchanged; a plan none of whose sources is here was
    // made for another project, and building without it would hide that.
    bool anyHere = llvm::any_of(plan->sources, [](const PlanSource& s) { return llvm::sys::fs::exists(s.path); });
    if (!anyHere && !plan->sources.empty())
      return reportError(fmt::format("nvcc: the plan {} was made for other sources ({} is not here)", planPath,
                                     plan->sources.front().path));
    return wrapper::runCompiler(nvcc, args);
  }
  auto tree = rewrittenTree(*plan, planPath, *planText, wrapper::withoutInputs(args, invocation));
  if (!tree) return reportError("nvcc: cannot apply the plan " + planPath + ": " + llvm::toString(tree.takeError()));
  std::vector<std::string> command = args;
  for (size_t i = 0; i < planned.size(); ++i) command[planned[i]] = wrapper::mirrored(*tree, plannedSources[i]);
  std::vector<std::string> full = wrapper::mirrorSearchArgs(args, *tree, plannedSources);
  full.insert(full.end(), command.begin(), command.end());
  int code = wrapper::runCompiler(nvcc, full);
  wrapper::restoreDependencyFile(args, invocation, *tree);
  return code;
}

}  // namespace relayout
