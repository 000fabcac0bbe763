// The rewriter stage: applies a layout plan to CUDA sources. For every struct the plan lays out as
// SoA or clusters, device arrays of that struct (pointers filled by cudaMalloc, cudaMallocManaged
// or pinned cudaMallocHost / cudaHostAlloc, and the kernel and device-function parameters they
// reach) get a device-layout struct of arrays; their accesses, allocations, copies and frees are
// rewritten, on the host too; plain host arrays (malloc, new[], std::vector) keep the original
// struct and their copies gather or scatter the fields. A struct with
// a use that cannot be proven safe is left as it was, with a warning naming that use.
#pragma once

#include "relayout/core/Plan.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <vector>

namespace relayout {

struct RewrittenFile {
  std::string path;       // a source as given, or a user header as Clang found it
  std::string original;
  std::string rewritten;  // equal to `original` when nothing in the file changed
  // Unchanged, but it includes a changed header (directly or not): an output tree needs its copy,
  // or its "..." include would find the original header beside the original file.
  bool includesChanged = false;
};

struct StructOutcome {
  std::string name;
  Layout layout = Layout::AoS;  // as planned
  unsigned align = 0;           // aligned: to this many bytes (StructPlan::align)
  bool rewritten = false;       // false: left unchanged, and `diagnostics` says why
  std::vector<std::string> reasons;  // the warnings' messages, one line each
};

struct RewriteResult {
  std::vector<RewrittenFile> files;      // every source in the order given, then changed headers
  std::vector<std::string> diagnostics;  // clang-style "file:line:col: warning: ..." with source lines
  std::vector<StructOutcome> structs;    // one per struct of the plan that is not AoS, in plan order
  bool ok = true;                        // every non-AoS struct was rewritten
};

// Parses `sources` with the commands of `db` (which must already make Clang parse them as CUDA,
// host side: -x cuda --cuda-host-only ...), checks the plan against the structs found, and returns
// the rewritten text of every file. Nothing is written to disk. Fails, with nothing rewritten,
// when a source does not parse or the plan names a struct or field the sources do not have (those
// errors name `planPath` and the struct's JSON pointer when it is given).
llvm::Expected<RewriteResult> rewriteSources(const Plan& plan, const std::vector<std::string>& sources,
                                             const clang::tooling::CompilationDatabase& db,
                                             llvm::StringRef planPath = {});

// Clang's first error (file:line:col: message) when it compiles a CUDA source for the device as it
// is, or none (also for a source that is not a CUDA unit). nvcc accepts some code Clang refuses
// there; where Clang cannot compile a source, code only the device side compiles (#if
// __CUDA_ARCH__) is seen by neither pass, and rewrite refuses the structs it would change.
std::optional<std::string> deviceSideError(const clang::tooling::CompilationDatabase& db, const std::string& source);

}  // namespace relayout
