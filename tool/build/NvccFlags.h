// nvcc's command line as Clang must read it to parse a source the way nvcc compiles it: the
// translation of every nvcc flag (docs/nvcc-dialect.md is the table), the language nvcc gives a
// file, the macros nvcc defines, and relayout's dialect header.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <string>
#include <vector>

namespace relayout {

// What one compile's nvcc flags mean to a parse.
struct NvccTranslation {
  std::vector<std::string> clangFlags;  // for every language: -D, -I, -std=, -O, host-compiler flags
  std::vector<std::string> cudaFlags;   // for CUDA parses only: -fgpu-rdc, -D__CUDACC_RDC__, ...
  std::vector<std::string> gpuArchs;    // Clang's names (sm_90, sm_90a), once each, in the order given
  std::string language;                 // the value of nvcc's -x ("cu", "c++", "c"); empty when not given
  std::vector<std::string> notes;       // one per flag dropped on purpose, e.g. "dropping nvcc flag '-G': ..."
  std::vector<std::string> warnings;    // flags relayout does not know, options files it cannot read
};

// Translates nvcc's flags (options files read in place). Never fails: what Clang cannot use is
// dropped with a note, what relayout does not know with a warning. Input files, -c, -o and the
// dependency-file flags only say what nvcc reads and writes, and are left out silently.
NvccTranslation translateNvccFlags(const std::vector<std::string>& nvccFlags);

// What one nvcc command reads and produces, as the compiler wrapper must know it to swap a source
// for its instrumented or rewritten copy and to add relayout's runtime to a link.
struct NvccInvocation {
  std::vector<size_t> inputs;          // indices of the input files among the arguments
  std::vector<std::string> options;    // long names of the nvcc options given (e.g. "compile", "output-file")
  std::string language;                // -x's value; empty when not given
  std::string unreadable;              // why relayout cannot follow this command; empty when it can
  bool has(llvm::StringRef longName) const;
  // Only prints or preprocesses (-E, -M, --version, -ptx, ...): nothing a mode changes.
  bool producesNoObject() const;
  // Ends in a host link (no -c, -dc, -lib, -dlink, ... and at least one input).
  bool links() const;
};

// Reads nvcc's arguments with the same table of options translateNvccFlags uses. Options files
// and response files are not opened: a command that names any is marked unreadable.
NvccInvocation readNvccInvocation(const std::vector<std::string>& args);

// How nvcc compiles `file`: -x's value when given, else by the file's extension (.cu: CUDA; .cpp,
// .cc, .cxx, .c++, .C: host C++; .c: C; anything else CUDA, as relayout was asked to parse it).
enum class SourceLanguage { Cuda, Cxx, C };
SourceLanguage nvccSourceLanguage(llvm::StringRef file, llvm::StringRef xValue);

// The macros nvcc defines in every compile, CUDA or host: __NVCC__ and the toolkit's version
// (__CUDACC_VER_MAJOR__/MINOR/BUILD, __CUDA_API_VER_MAJOR__/MINOR), as -D flags.
std::vector<std::string> nvccMacroFlags();

// relayout's dialect header (tool/resources/relayout-nvcc-dialect.h), at PREFIX/share/relayout/
// (Toolchain.h); empty when it is not there.
std::string dialectHeaderPath();

}  // namespace relayout
