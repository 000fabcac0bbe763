// The kernels a rewrite's copies launch to place fields in the new layout (relayoutScatter...,
// relayoutGather...): the rewriter names them, relayout-verify leaves them out of a program's
// kernel time (docs/formats.md, "Verification").
#pragma once

#include <string_view>

namespace relayout {

inline constexpr std::string_view kScatterKernelPrefix = "relayoutScatter";
inline constexpr std::string_view kGatherKernelPrefix = "relayoutGather";

// Whether a kernel's (mangled) name is one of those copy kernels.
inline bool isLayoutCopyKernel(std::string_view name) {
  return name.find(kScatterKernelPrefix) != std::string_view::npos ||
         name.find(kGatherKernelPrefix) != std::string_view::npos;
}

}  // namespace relayout
