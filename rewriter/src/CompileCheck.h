// Compiles a rewritten program before it is written: each source with its own database command,
// host side, then device side for CUDA units, with the rewritten files in place of the originals
// (in memory; nothing touches the disk). The host-side parse that collected the uses never sees
// device-only code (#ifdef __CUDA_ARCH__ branches), so the device side is checked separately.
#pragma once

#include "Facts.h"

#include <clang/Tooling/CompilationDatabase.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace relayout::rw {

struct CompileFailure {
  std::string side;     // "host" or "device"
  std::string file;     // real path of the file of the first error
  unsigned line = 0;    // of the first error, in the rewritten text
  unsigned column = 0;
  std::string message;  // the first error's message
  std::string output;   // Clang's errors and their notes, as Clang prints them
  // The failure is the original's: Clang cannot compile the source for this side as it is (nvcc
  // may), so no rewrite of it can be checked there.
  bool original = false;
};

class CompileCheck {
 public:
  CompileCheck(const clang::tooling::CompilationDatabase& db, std::vector<std::string> sources)
      : db_(db), sources_(std::move(sources)) {}

  // The first failure of the program whose files `replaced` (real path -> bytes) replace, or none.
  // A source Clang cannot compile for the device as it is fails every rewrite (`original` set): its
  // device-only code was seen by neither pass, and a rewrite nobody compiled is never written.
  std::optional<CompileFailure> firstFailure(const std::map<std::string, std::string>& replaced);

  // Compiles one source as it is, or with `replaced` files, for one side. Errors nvcc only warns
  // about (Diagnostics.h, nvccOnlyWarns) do not fail it: any of them, or with `acceptOnly` as many
  // of each message as it holds; `accepted` receives the messages of those it accepted.
  std::optional<CompileFailure> compile(const std::string& source, bool device,
                                        const std::map<std::string, std::string>& replaced,
                                        const std::multiset<std::string>* acceptOnly = nullptr,
                                        std::multiset<std::string>* accepted = nullptr);
  bool isCuda(const std::string& source) const;

 private:

  const clang::tooling::CompilationDatabase& db_;
  std::vector<std::string> sources_;
  struct DeviceBaseline {
    std::optional<CompileFailure> failure;  // the original's own
    std::multiset<std::string> accepted;    // its errors nvcc only warns about, one message each
  };
  std::map<std::string, DeviceBaseline> originalDevice_;
};

// The byte offset in the original text of a byte offset of the text `edits` made from it: inside
// inserted or replacing text, where that edit starts. `edits` are sorted by offset.
unsigned originalOffset(const std::vector<Edit>& edits, unsigned rewrittenOffset);

// A clang-style warning that `structName` keeps its layout because its rewrite does not compile,
// placed at the original text of the first error (at `fallback` in `fallbackFile` when the error
// lies outside the files relayout edits), then a note with Clang's errors in the rewritten text.
std::string compileRefusal(const std::string& structName, const CompileFailure& failure,
                           const std::map<std::string, std::string>& originals,
                           const std::map<std::string, std::vector<Edit>>& editsByFile,
                           const std::string& fallbackFile, unsigned fallback);

}  // namespace relayout::rw
