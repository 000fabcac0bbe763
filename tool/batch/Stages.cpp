#include "batch/Stages.h"

#include "batch/Paths.h"
#include "batch/Shell.h"
#include "batch/Variants.h"

#include "verify/Selection.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace relayout::batch {

namespace {

constexpr const char* kStageFormat = "relayout-batch-stage";

int fail(const std::string& message) {
  std::fprintf(stderr, "relayout: error: %s\n", message.c_str());
  return 1;
}

// Whether a folder is missing or empty: one a stage may fill.
bool freeFolder(const std::string& folder) {
  if (!llvm::sys::fs::exists(folder)) return true;
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(folder, ec);
  return !ec && it == llvm::sys::fs::directory_iterator();
}

// A new, empty folder: a prepared folder is never written over.
llvm::Error freshFolder(const std::string& folder) {
  if (!freeFolder(folder))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s exists and is not empty; remove it or name another folder", folder.c_str());
  if (std::error_code ec = llvm::sys::fs::create_directories(folder))
    return llvm::createStringError(ec, "cannot create %s: %s", folder.c_str(), ec.message().c_str());
  return llvm::Error::success();
}

// Copies a file into a prepared folder, creating the folders on its way.
llvm::Error copyInto(const std::string& from, const std::string& to) {
  if (std::error_code ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to)))
    return llvm::createStringError(ec, "cannot create the folder of %s", to.c_str());
  if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
    return llvm::createStringError(ec, "cannot copy %s to %s: %s", from.c_str(), to.c_str(), ec.message().c_str());
  return llvm::Error::success();
}

// Copies a program into a prepared folder without its host debug information (a sixth of the
// size: the folder travels), when binutils' strip is there; the GPU code keeps its line table.
llvm::Error copyExecutable(const std::string& from, const std::string& to) {
  if (llvm::Error err = copyInto(from, to)) return err;
  llvm::sys::fs::setPermissions(to, llvm::sys::fs::all_read | llvm::sys::fs::all_exe | llvm::sys::fs::owner_write);
  if (llvm::ErrorOr<std::string> strip = llvm::sys::findProgramByName("strip")) {
    const llvm::StringRef args[] = {*strip, "--strip-debug", to};
    llvm::sys::ExecuteAndWait(*strip, args);  // a copy that keeps its debug information still runs
  }
  return llvm::Error::success();
}

// The manifest's `data` of an application, copied into `appFolder`/data at the same relative paths:
// run.sh copies them into the folder each program runs in, where a program that reads input files
// from its own folder finds them.
llvm::Error copyData(const App& app, const std::string& appFolder) {
  namespace fs = llvm::sys::fs;
  for (const std::string& entry : app.data) {
    const std::string from = joinPath(app.dir, entry), to = joinPath(joinPath(appFolder, "data"), entry);
    if (!fs::is_directory(from)) {
      if (llvm::Error err = copyInto(from, to)) return err;
      continue;
    }
    // A folder whole, its empty folders too (a program may write into one it expects to be there).
    if (std::error_code ec = fs::create_directories(to))
      return llvm::createStringError(ec, "cannot create %s: %s", to.c_str(), ec.message().c_str());
    if (llvm::Error err = copyTree(from, to)) return err;
  }
  return llvm::Error::success();
}

// The script's lines before each application's: `run NAME LIMIT COMMAND...` runs COMMAND in
// NAME/work, a fresh folder holding a copy of the application's data (APP/data, the manifest's
// `data`), with its output in NAME/output.txt, and the script's status says whether all exited 0.
// `run.sh NAME` runs that application alone, its variants' lines (NAME/variants/VARIANT) with it
// (what each task of --slurm's job array does).
std::string scriptHead(const std::string& what, const std::string& then) {
  return fmt::format(
      "#!/bin/sh\n"
      "# Written by relayout batch: {}\n"
      "# Then, where relayout is: {}\n"
      "# run.sh NAME runs that application alone. Each program runs in NAME/work, a fresh folder into\n"
      "# which the files the manifest's `data` names are copied from NAME/data (its own folder, where it\n"
      "# ran when relayout built it, is not here).\n"
      "cd \"$(dirname \"$0\")\" || exit 1\n"
      "here=$(pwd)\n"
      "only=${{1-}}\n"
      "status=0\n"
      "run() {{\n"
      "  case $1 in \"$only\" | \"$only\"/*) ;; *) [ -z \"$only\" ] || return 0 ;; esac\n"
      "  ran=1\n"
      "  name=$1 limit=$2\n"
      "  shift 2\n"
      "  rm -rf \"$here/$name/work\" && mkdir -p \"$here/$name/work\" || exit 1\n"
      "  app=${{name%%/*}}\n"
      "  [ ! -d \"$here/$app/data\" ] || cp -R \"$here/$app/data/.\" \"$here/$name/work/\" || exit 1\n"
      "  (cd \"$here/$name/work\" && timeout \"$limit\" \"$@\") > \"$here/$name/output.txt\" 2>&1\n"
      "  rc=$?\n"
      "  echo \"$name: exit $rc\"\n"
      "  [ \"$rc\" -eq 0 ] || status=1\n"
      "}}\n",
      what, then);
}

llvm::Error writeStage(const std::string& folder, const std::string& stage, const Manifest& manifest,
                       const std::string& outDir, const std::vector<std::string>& apps) {
  nlohmann::json j = {{"format", kStageFormat},    {"version", 1},  {"stage", stage},
                      {"manifest", manifest.path}, {"out", outDir}, {"applications", apps}};
  return writeFileAtomically(joinPath(folder, "stage.json"), j.dump(1) + "\n");
}

// Ends a prepared folder: its run.sh (the script plus its exit) and stage.json, and the line that
// says what to do next. Exit status 1 when no application made it into the folder.
int finishFolder(const std::string& folder, std::string script, const char* stage, const Manifest& manifest,
                 const RunOptions& options, const std::vector<std::string>& names, const char* what, RunBy by);

std::string collectCommand(const Manifest& manifest, const std::string& outDir, const std::string& folder) {
  return fmt::format("relayout batch {} -o {} --collect {}", shellQuoted(manifest.path), shellQuoted(outDir),
                     shellQuoted(folder));
}

// A run.sh line: relayout-verify, in the folder `at`, on the application's original against
// `program` (both relative to the prepared folder), into `at`/verify.
std::string verifyLine(const App& app, const std::string& at, const std::string& program, bool forVariant) {
  return fmt::format(
      "run {} {} \"$here/bin/relayout-verify\" --original \"$here/{}/original\" --rewritten "
      "\"$here/{}\" -o \"$here/{}/verify\"{}\n",
      shellQuoted(at), app.timeoutSeconds, app.name, program, at, verifyOptions(app, forVariant));
}

// A run.sh line: relayout-verify, in the application's folder, on its original against each candidate
// that built, into NAME/verify.
std::string candidatesLine(const App& app, const std::vector<std::string>& candidates) {
  std::string line = fmt::format("run {} {} \"$here/bin/relayout-verify\" --original \"$here/{}/original\"",
                                 shellQuoted(app.name), app.timeoutSeconds, app.name);
  for (const std::string& c : candidates)
    line += fmt::format(" --candidate {}=\"$here/{}/candidates/{}\"", c, app.name, c);
  return line + fmt::format(" -o \"$here/{}/verify\"{}\n", app.name, verifyOptions(app, false));
}

// The folder with the original and rewritten program of every application optimize rewrote, and
// relayout-verify to run each pair where the GPU is.
int prepareVerification(const Manifest& manifest, const RunOptions& options, const std::string& folder, RunBy by) {
  if (llvm::Error err = freshFolder(folder)) return fail(llvm::toString(std::move(err)));
  const std::string verifyTool =
      joinPath(std::string(llvm::sys::path::parent_path(options.relayout)), "relayout-verify");
  llvm::SmallString<256> kerneltime(llvm::sys::path::parent_path(llvm::sys::path::parent_path(options.relayout)));
  llvm::sys::path::append(kerneltime, "lib", "librelayout_kerneltime.so");
  if (llvm::Error err = copyExecutable(verifyTool, joinPath(folder, "bin/relayout-verify")))
    return fail(llvm::toString(std::move(err)));
  if (llvm::Error err = copyExecutable(std::string(kerneltime), joinPath(folder, "lib/librelayout_kerneltime.so")))
    return fail(llvm::toString(std::move(err)));
  std::string script = scriptHead("verifies each rewritten program against its original where the GPU is",
                                  collectCommand(manifest, options.outDir, folder));
  std::vector<std::string> names;
  for (const App& app : manifest.apps) {
    if (!options.only.empty() && !options.only.count(app.name)) continue;
    if (recordedStatus(options.outDir, app.name) != Status::Rewritten) continue;
    const std::string built = joinPath(appFolder(options.outDir, app.name), "verify");
    llvm::Expected<std::vector<StagedCandidate>> candidates = readCandidates(appFolder(options.outDir, app.name));
    if (!candidates) return fail(llvm::toString(candidates.takeError()));
    if (llvm::Error err = copyExecutable(joinPath(joinPath(built, "original"), "program"),
                                         joinPath(joinPath(folder, app.name), "original")))
      return fail(llvm::toString(std::move(err)));
    if (llvm::Error err = copyData(app, joinPath(folder, app.name))) return fail(llvm::toString(std::move(err)));
    // Each candidate that built, against the same original: NAME/candidates/CANDIDATE.
    std::vector<std::string> measured;
    for (const StagedCandidate& c : *candidates) {
      const std::string program = joinPath(joinPath(built, c.name), "program");
      if (!llvm::sys::fs::exists(program)) continue;
      if (llvm::Error err = copyExecutable(program, joinPath(folder, app.name + "/candidates/" + c.name)))
        return fail(llvm::toString(std::move(err)));
      measured.push_back(c.name);
    }
    if (measured.empty()) {
      recordStatus(options.outDir, app, Status::Rejected, "no candidate rewrite built (see its log)");
      continue;
    }
    script += candidatesLine(app, measured);
    // The hand-written variants, each against the same original: NAME/variants/VARIANT/.
    for (const Variant& variant : app.variants) {
      if (llvm::Error err = buildVariant(app, variant, options.outDir)) {
        std::fprintf(stderr, "relayout: batch: %s: variant '%s' not timed: %s\n", app.name.c_str(),
                     variant.name.c_str(), llvm::toString(std::move(err)).c_str());
        continue;
      }
      const std::string at = app.name + "/variants/" + variant.name;
      if (llvm::Error err = copyExecutable(joinPath(variantFolder(options.outDir, app.name, variant.name), "program"),
                                           joinPath(folder, at + "/program")))
        return fail(llvm::toString(std::move(err)));
      script += verifyLine(app, at, at + "/program", true);
    }
    names.push_back(app.name);
  }
  // Every application ended in this round (nothing to measure): no second round trip to ask for.
  const bool allEnded = std::all_of(manifest.apps.begin(), manifest.apps.end(), [&](const App& app) {
    return (!options.only.empty() && !options.only.count(app.name)) ||
           succeeded(recordedStatus(options.outDir, app.name));
  });
  if (names.empty() && allEnded) {
    llvm::sys::fs::remove_directories(folder);
    std::fprintf(stderr,
                 "relayout: batch: nothing to verify where the GPU is: every application ended in this round\n");
    return 0;
  }
  return finishFolder(folder, std::move(script), "verify", manifest, options, names,
                      "applications' candidate rewrites and originals", by);
}

// Verification's results back: each application's verify.json says which candidate, if any, ran
// faster with the same outputs; that one is applied (applySelection), and the status says what happened.
int collectVerification(const Manifest& manifest, const RunOptions& options, const std::string& folder,
                        const std::vector<std::string>& names, RunBy by) {
  size_t verified = 0;
  for (const App& app : manifest.apps) {
    if (std::find(names.begin(), names.end(), app.name) == names.end()) continue;
    const std::string from = joinPath(joinPath(folder, app.name), "verify");
    llvm::Expected<nlohmann::json> v = readJsonFile(joinPath(from, "verify.json"));
    if (!v) {
      llvm::consumeError(v.takeError());
      recordStatus(
          options.outDir, app, Status::Failed,
          "verification wrote no verify.json (see " + joinPath(joinPath(folder, app.name), "output.txt") + ")");
      continue;
    }
    const std::string to = joinPath(appFolder(options.outDir, app.name), "verify/verify.json");
    if (llvm::Error err = writeFileAtomically(to, v->dump(1) + "\n")) return fail(llvm::toString(std::move(err)));
    for (const Variant& variant : app.variants) {
      const std::string at = joinPath(joinPath(joinPath(folder, app.name), "variants"), variant.name);
      if (llvm::Expected<nlohmann::json> vv = readJsonFile(joinPath(at, "verify/verify.json"))) {
        const std::string into = joinPath(variantFolder(options.outDir, app.name, variant.name), "verify/verify.json");
        if (llvm::Error err = writeFileAtomically(into, vv->dump(1) + "\n"))
          return fail(llvm::toString(std::move(err)));
      } else {
        llvm::consumeError(vv.takeError());
      }
    }
    // What was measured faster is applied here, as optimize applies it where the GPU is.
    llvm::Expected<Selection> selection = applySelection(appFolder(options.outDir, app.name));
    if (!selection) {
      recordStatus(options.outDir, app, Status::Failed, llvm::toString(selection.takeError()));
      continue;
    }
    std::optional<std::pair<Status, std::string>> status = statusFromSelection(appFolder(options.outDir, app.name));
    const Status s = status ? status->first : Status::Failed;
    verified += succeeded(s);
    recordStatus(options.outDir, app, s, s == Status::Verified ? "" : selection->message);
  }
  writeSummary(manifest, options.outDir, options.gpus);
  if (by == RunBy::Slurm) return verified == names.size() ? 0 : 1;  // it counts every application it ran
  std::fprintf(stderr, "relayout: batch: %zu of %zu applications verified faster or untouched; summary in %s\n",
               verified, names.size(), joinPath(options.outDir, "summary.md").c_str());
  return verified == names.size() ? 0 : 1;
}

int finishFolder(const std::string& folder, std::string script, const char* stage, const Manifest& manifest,
                 const RunOptions& options, const std::vector<std::string>& names, const char* what, RunBy by) {
  script += "[ -z \"$only\" ] || [ -n \"${ran-}\" ] || { echo \"run.sh: no application $only\" >&2; exit 2; }\n";
  script += "exit $status\n";
  const std::string runScript = joinPath(folder, "run.sh");
  if (llvm::Error err = writeFileAtomically(runScript, script)) return fail(llvm::toString(std::move(err)));
  llvm::sys::fs::setPermissions(runScript,
                                llvm::sys::fs::all_read | llvm::sys::fs::all_exe | llvm::sys::fs::owner_write);
  if (llvm::Error err = writeStage(folder, stage, manifest, options.outDir, names))
    return fail(llvm::toString(std::move(err)));
  if (by == RunBy::Hand)
    std::fprintf(stderr, "relayout: batch: %zu %s are in %s: run %s where the GPU is, then %s\n", names.size(), what,
                 folder.c_str(), runScript.c_str(), collectCommand(manifest, options.outDir, folder).c_str());
  else std::fprintf(stderr, "relayout: batch: %zu %s are in %s\n", names.size(), what, folder.c_str());
  return names.empty() ? 1 : 0;
}

}  // namespace

std::string verificationFolder(const std::string& folder) {
  std::string out = folder;
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out + "-verify";
}

int prepareProfiling(const Manifest& manifest, RunOptions options, const std::string& folder, RunBy by) {
  if (llvm::Error err = freshFolder(folder)) return fail(llvm::toString(std::move(err)));
  options.stage = Stage::BuildProfiled;
  runBatch(manifest, options);
  std::string script = scriptHead(
      "runs each instrumented program once where the GPU is (it needs the CUDA driver "
      "and CUPTI), writing NAME/profile.json",
      collectCommand(manifest, options.outDir, folder));
  std::vector<std::string> names;
  for (const App& app : manifest.apps) {
    if (!options.only.empty() && !options.only.count(app.name)) continue;
    if (recordedStatus(options.outDir, app.name) != Status::Built) continue;
    const std::string program = joinPath(joinPath(appFolder(options.outDir, app.name), "instrumented"), "program");
    if (llvm::Error err = copyExecutable(program, joinPath(joinPath(folder, app.name), "program")))
      return fail(llvm::toString(std::move(err)));
    if (llvm::Error err = copyData(app, joinPath(folder, app.name))) return fail(llvm::toString(std::move(err)));
    // The arguments stay shell words, as the manifest's `run` gives them.
    script += fmt::format("run {} {} env RELAYOUT_PROFILE=\"$here/{}/profile.json\" \"$here/{}/program\" {}\n",
                          shellQuoted(app.name), app.timeoutSeconds, app.name, app.name, app.run);
    names.push_back(app.name);
  }
  return finishFolder(folder, std::move(script), "profile", manifest, options, names, "instrumented programs", by);
}

llvm::Expected<PreparedFolder> readPreparedFolder(const std::string& folder) {
  llvm::Expected<nlohmann::json> stage = readJsonFile(joinPath(folder, "stage.json"));
  if (!stage)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s (a folder `relayout batch --prepare` wrote?)",
                                   llvm::toString(stage.takeError()).c_str());
  if (llvm::Error err = checkFormat(*stage, joinPath(folder, "stage.json"), kStageFormat, 1)) return std::move(err);
  return PreparedFolder{stage->value("stage", ""), stage->value("applications", std::vector<std::string>{})};
}

int collect(const Manifest& manifest, RunOptions options, const std::string& folder, RunBy by) {
  llvm::Expected<PreparedFolder> prepared = readPreparedFolder(folder);
  if (!prepared) return fail(llvm::toString(prepared.takeError()));
  const std::vector<std::string>& names = prepared->applications;
  if (prepared->stage == "verify") return collectVerification(manifest, options, folder, names, by);
  // The verification folder this ends by writing must be free before minutes of building, not after.
  if (!freeFolder(verificationFolder(folder)))
    return fail(verificationFolder(folder) +
                " exists and is not empty: it would receive this round's programs; remove it or move it away, "
                "then collect again");
  // Profiles back: the applications whose run wrote one go on (decide, rewrite, build the pair).
  options.only.clear();
  for (const App& app : manifest.apps) {
    if (std::find(names.begin(), names.end(), app.name) == names.end()) continue;
    if (llvm::sys::fs::exists(joinPath(joinPath(folder, app.name), "profile.json"))) options.only.insert(app.name);
    else
      recordStatus(options.outDir, app, Status::Failed,
                   "its run wrote no profile (see " + joinPath(joinPath(folder, app.name), "output.txt") + ")");
  }
  if (options.only.empty()) {
    writeSummary(manifest, options.outDir, options.gpus);
    return fail("no application's run in " + folder + " wrote a profile");
  }
  options.stage = Stage::FromProfile;
  options.profiles = folder;
  runBatch(manifest, options);
  // Beside the plan, as a run on the GPU leaves it: the summary's profile cost reads its kernel times.
  for (const std::string& name : options.only)
    if (std::error_code ec = llvm::sys::fs::copy_file(joinPath(joinPath(folder, name), "profile.json"),
                                                      joinPath(appFolder(options.outDir, name), "profile.json")))
      std::fprintf(stderr, "relayout: warning: %s: cannot keep its profile: %s\n", name.c_str(), ec.message().c_str());
  return prepareVerification(manifest, options, verificationFolder(folder), by);
}

}  // namespace relayout::batch
