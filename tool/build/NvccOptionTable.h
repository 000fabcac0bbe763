// nvcc's options, one table: each option's names, whether it takes a value, and what it means to
// a Clang parse (NvccFlags.cpp translates by it, and reads nvcc's command lines with it).
#pragma once

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>

namespace relayout::nvcc {

// Why a flag is dropped: the end of its note.
inline constexpr llvm::StringLiteral kGpuCode = "it changes only the GPU code nvcc generates";
inline constexpr llvm::StringLiteral kHostCode = "it changes only the host code generated, not what the source means";
inline constexpr llvm::StringLiteral kDebugInfo = "it changes only the debug information generated";
inline constexpr llvm::StringLiteral kLinking = "it changes only linking";
inline constexpr llvm::StringLiteral kDriver = "it changes only how nvcc runs, not what the source means";
inline constexpr llvm::StringLiteral kMode = "relayout parses the source whatever nvcc is asked to produce";
inline constexpr llvm::StringLiteral kDiagNumbers = "Clang has no equivalent of nvcc's diagnostic numbers";
inline constexpr llvm::StringLiteral kNoClang = "Clang has no equivalent";
inline constexpr llvm::StringLiteral kWerror = "relayout does not turn warnings into errors while it parses";
inline constexpr llvm::StringLiteral kHostCompiler = "relayout parses with Clang, not with the host compiler nvcc runs";

// What a flag does to the parse.
enum class Action {
  Silent,          // only says what nvcc reads or writes (-c, -o, -MF, ...)
  Drop,            // dropped with a note; `text` says why
  CudaMacro,       // defines the macro `text` in CUDA parses
  Clang,           // Clang's flag `text`, any language
  CudaClang,       // Clang's flag `text`, CUDA parses
  Define,          // -D (a comma list)
  Undefine,        // -U
  IncludePath,     // -I
  SystemInclude,   // -isystem
  PreInclude,      // -include
  Std,             // -std
  Optimize,        // -O: the host compiler's level
  Arch,            // -arch
  Code,            // -code
  Gencode,         // -gencode arch=...,code=...
  Language,        // -x
  HostOptions,     // -Xcompiler
  Rdc,             // -rdc true|false (and -dc, -dlto: true)
  Machine,         // --machine 64
  DefaultStream,   // --default-stream per-thread
  HostCompiler,    // -ccbin: an MPI compiler wrapper's include folders and macros; otherwise dropped
  ForwardUnknown,  // flags nvcc does not know go to the host compiler
  TemplateDepth,
  TemplateBacktrace,
};

struct NvccOption {
  llvm::StringRef longName;   // without its dashes
  llvm::StringRef shortName;  // without its dash; empty when the same as the long name
  bool takesValue;
  Action action;
  llvm::StringRef text = {};  // Drop: the reason; CudaMacro: the macro; Clang, CudaClang: the flag
};

// The table's options by long and by short name.
const llvm::StringMap<const NvccOption*>& optionsByName();

// A short option written with its value attached (-Idir): the option, and the value in `value`;
// null when `flag` is not one.
const NvccOption* attachedValueOption(llvm::StringRef flag, llvm::StringRef& value);

}  // namespace relayout::nvcc
