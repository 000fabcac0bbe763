// Code a host-side parse sees otherwise than nvcc's device compilation: `#if` blocks whose
// condition names __CUDA_ARCH__ (or a macro defined in such a block, or defined in terms of it),
// the macros defined in them, and the text of them the parse skipped. Both Clang passes parse the
// host side; the instrumenter warns about field accesses in the skipped text, the rewriter infers
// restrict locals only where no such code is involved.
#pragma once

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceLocation.h>
#include <clang/Basic/SourceManager.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace clang {
class PPCallbacks;
}

namespace relayout {

struct DeviceConditionals {
  std::vector<clang::SourceRange> blocks;   // from the `#if` to its `#endif`
  std::vector<clang::SourceRange> skipped;  // parts of those blocks this parse skipped
  std::set<std::string> macros;
};

// Fills `out` while the unit is preprocessed.
std::unique_ptr<clang::PPCallbacks> recordDeviceConditionals(const clang::SourceManager& sm,
                                                             const clang::LangOptions& lang, DeviceConditionals& out);

}  // namespace relayout
