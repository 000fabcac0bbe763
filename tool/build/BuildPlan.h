// Building a program from instrumented sources with nvcc (or, plain, the user's program from the
// original or rewritten sources, for optimize --verify). A plan is only data, the nvcc commands
// in the order they run, so that it can be printed, tested and run, and reused by anything that
// drives nvcc for relayout (optimize today, a compiler wrapper later).
#pragma once

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

// One nvcc invocation: args[0] is nvcc; `output` the file it writes (its folder is made before it
// runs); `what` says in a few words what it makes, for errors.
struct NvccCommand {
  std::vector<std::string> args;
  std::string output;
  std::string what;
  std::string text() const;  // the command line, shell-quoted where needed
};

// What relayout adds to an instrumented build: its runtime and CUPTI (a plain build uses only nvcc).
struct RuntimeToolchain {
  std::string nvcc;
  std::string runtimeIncludeDir;  // holds relayout/rt.cuh
  std::string runtimeLibrary;     // librelayout_rt.a
  std::string cuptiLibraryDir;
};

struct UnitToBuild {
  std::string originalSource;      // as given; its folder is searched for the headers it includes
  std::string instrumentedSource;  // the copy that is compiled: instrumented, rewritten, or the original
  std::vector<std::string> flags;  // nvcc's flags for this unit: from the compile database, or the same for all
};

struct BuildRequest {
  std::vector<UnitToBuild> units;
  // Folders holding relayout's copies of project headers (DIR/instrumented's or DIR/rewritten's),
  // searched before every original include folder so that those copies win.
  std::vector<std::string> copiedIncludeRoots;
  // false: a plain build, the program as the user's flags make it: no relayout runtime (its
  // include folder, library, CUPTI) and no added -lineinfo, so that it runs and times as theirs.
  bool withRuntime = true;
  // true: each unit compiled with its own flags into objectDir, then one link (compile database);
  // false: one nvcc command compiles and links every unit with the units' shared flags.
  bool compileSeparately = false;
  std::string objectDir;
  std::string program;
};

// The commands that build `request.program`. The GPU architecture is the flags' own (-arch,
// -gencode, ...; the link takes every unit's), otherwise the GPU of this machine (-arch=native).
// Relocatable device code (-rdc=true, -dc) in any unit makes the link a device link too.
std::vector<NvccCommand> planBuild(const BuildRequest& request, const RuntimeToolchain& toolchain);

// The commands that compile each unit of `request` (its sources as they are, its own flags) to
// PTX with -lineinfo into `dir`/STEM.ptx, for the model to read what nvcc emits (analysis/Ptx.h).
// The first GPU architecture the flags name is the target (sm_90 when they name none: -arch=native
// needs a GPU); what only links or builds objects (-c, -dc, -o) is left out.
std::vector<NvccCommand> planPtx(const BuildRequest& request, const std::string& nvcc, const std::string& dir);

// Runs the commands in order, each printed first as "relayout: building WHAT: ..."; stops at the
// first that fails, with an error saying which.
llvm::Error runBuild(const std::vector<NvccCommand>& commands, const std::string& what = "the instrumented program");

}  // namespace relayout
