// nvcc's host compiler given as an MPI compiler wrapper (-ccbin mpicxx), the usual way CUDA+MPI
// programs are built: the wrapper adds MPI's include folders to every compile, so a parse with
// Clang, which does not run the host compiler, must add them too.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

// Whether `compiler` (a name or a path) is an MPI compiler wrapper: mpicxx, mpic++, mpiCC, mpicc,
// mpiicpc, mpiicpx, mpiicx, mpicxx.openmpi, ...
bool isMpiCompilerWrapper(llvm::StringRef compiler);

// The -I, -isystem and -D flags the wrapper gives its compiler, for Clang: Open MPI's
// `--showme:compile`, else MPICH's and Intel MPI's `-compile_info`. Include folders become
// -isystem (MPI's headers are not the project's). An error when neither answers.
llvm::Expected<std::vector<std::string>> mpiCompileFlags(const std::string& compiler);

}  // namespace relayout
