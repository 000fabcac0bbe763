// The profile-guided modes of `relayout nvcc` (NvccWrapper.h): each takes one nvcc command and runs
// it with the project's CUDA sources swapped for their instrumented (generate) or rewritten (use)
// copies, which live in a private mirror of the file system (MIRROR + absolute path), so that the
// copies' relative #includes resolve as the originals' do and parallel compiles never share files.
#pragma once

#include "build/NvccDiagnostics.h"
#include "build/NvccFlags.h"

#include <string>
#include <vector>

namespace relayout {

// generate: site maps and compile commands into `dir`, the link gets the runtime and CUPTI, and the
// program writes its profile into `dir`. Returns the exit code for the process.
int runGenerateMode(const std::string& nvcc, const std::vector<std::string>& args, const std::string& dir);

// use: the plan's sources compile rewritten (rewritten once per plan, cached beside it); other
// sources compile unchanged. Returns the exit code for the process.
int runUseMode(const std::string& nvcc, const std::vector<std::string>& args, const std::string& planPath);

namespace wrapper {

// A compiler launcher of the build's own that relayout's runs in front of (ccache: CMake's
// CUDA_COMPILER_LAUNCHER before relayout_enable chained them): the compiles of the user's command
// go through it. Empty: none.
void setChainedLauncher(const std::string& launcher);
// Whether `program` names a compiler launcher relayout knows (ccache, sccache, buildcache, distcc).
bool isCompilerLauncher(const std::string& program);

// Runs nvcc ARGS (through the chained launcher, if any) with this process's standard streams; its
// exit code, or 1 (with a message) when it cannot be started or is killed. With `tidy`, nvcc's
// standard error goes through tidyNvccDiagnostics (written to a file in tidy->mirror meanwhile).
int runCompiler(const std::string& nvcc, const std::vector<std::string>& args,
                const NvccDiagnosticPaths* tidy = nullptr);

// The inputs nvcc compiles as CUDA: .cu files, and C/C++ files under -x cu. Indices into args.
std::vector<size_t> cudaSources(const std::vector<std::string>& args, const NvccInvocation& invocation);

// Where `absolute` has its copy in the mirror rooted at `mirror`.
std::string mirrored(const std::string& mirror, const std::string& absolute);

// -I for the mirror's copies of the command's include folders (those that exist there), then -I
// for each swapped source's original folder: the copy lives elsewhere, and a header it includes
// with "..." that was not copied is found beside the original.
std::vector<std::string> mirrorSearchArgs(const std::vector<std::string>& args, const std::string& mirror,
                                          const std::vector<std::string>& swappedSources);

// The arguments without the input files (for parsing or recording one source's compile).
std::vector<std::string> withoutInputs(const std::vector<std::string>& args, const NvccInvocation& invocation);

// After a compile with -MD/-MMD of mirrored copies: the dependency file names the originals, as a
// plain compile's does (make must rebuild when they change, and the mirror is gone).
void restoreDependencyFile(const std::vector<std::string>& args, const NvccInvocation& invocation,
                           const std::string& mirror);

// A private temporary folder, removed with everything in it when this goes out of scope
// (RELAYOUT_KEEP_TEMPS=1 keeps it and says where).
class TempFolder {
 public:
  TempFolder();
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::string& path() const { return path_; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

}  // namespace wrapper

}  // namespace relayout
