// Compile flags for parsing CUDA with Clang: nvcc's flags translated (NvccFlags.h) and the flags
// that make clang-22 parse CUDA 13 host-side with nvcc's implicit includes; compile databases.
#pragma once

#include "build/NvccFlags.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/Error.h>

#include <memory>
#include <string>
#include <vector>

namespace relayout {

// True for the nvcc flags that choose the GPU architecture: -arch, --gpu-architecture, -gencode,
// --generate-code (with their values attached or not).
bool isNvccArchFlag(llvm::StringRef flag);

// The Clang arguments (no compiler, no file) that parse `file` the way nvcc compiles it with the
// translated flags: CUDA (host side, the toolkit's headers, nvcc's macros and relayout's dialect
// header) for .cu and under -x cu, host C++ for .cpp, C for .c (see nvccSourceLanguage); for the
// architectures the flags name, sm_90 when they name none.
std::vector<std::string> clangParseArguments(const NvccTranslation& translation, llvm::StringRef file);

// A compilation database for the sources: from `buildDir`/compile_commands.json when given,
// otherwise the same flags for every source. Either way nvcc flags are translated; each flag
// dropped on purpose gets one note unless `translationNotes` is false (in a build's compiles).
llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>> makeCompilationDatabase(
    const std::string& buildDir, const std::vector<std::string>& flags, bool translationNotes = true);

// How BUILD/compile_commands.json compiles one source, for building it again with nvcc: the
// entry's flags with the compiler, the source, the output, -c and dependency-file flags left out,
// and include paths made absolute against the entry's folder (so the flags work from anywhere).
struct DatabaseCompile {
  std::string source;              // as given
  std::string compiler;            // the entry's compiler, as written
  std::vector<std::string> flags;  // nvcc's flags
};

// The entry of each source, in order. Errors name a source the database does not list, a source
// whose entry does not use nvcc, or a missing or malformed database.
llvm::Expected<std::vector<DatabaseCompile>> readDatabaseCompiles(const std::string& buildDir,
                                                                  const std::vector<std::string>& sources);

}  // namespace relayout

namespace relayout {

// The folders of a compile database's entries (their files' folders): the project's own folders,
// whose headers are instrumented and rewritten with the sources. Empty for fixed flags.
std::vector<std::string> compileDatabaseFolders(const clang::tooling::CompilationDatabase& db);

}  // namespace relayout

namespace relayout {

// With -p: every source must have an entry in the database (LibTooling would skip it and the
// failure would read "the sources do not compile"). Fixed flags cover every source.
llvm::Error checkSourcesInDatabase(const clang::tooling::CompilationDatabase& db, const std::string& buildDir,
                                   const std::vector<std::string>& sources);

}  // namespace relayout
